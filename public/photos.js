// @ts-check
// Photos for vision models: pick from the camera or gallery, shrink in the browser (which also drops a camera's
// location data), upload each to POST /attachments as it is picked, and send their ids with the message. The
// server checks everything again; this only saves the person a slow upload or a refusal after sending.
(() => {
  'use strict';
  const maxLongSide = 1600;
  const jpegQuality = 0.85;
  // The tray's preview (a data: URL) and the thread's thumbnail (uploaded, sharp at 3x on a phone).
  const previewSide = 160;
  const thumbnailSide = 480;
  const perMessage = 4;

  const { csrfToken, byId, showLine } = window.hearth;
  const form = () => /** @type {HTMLFormElement | null} */ (byId('chat-form'));
  const tray = () => byId('photo-tray');
  const idsField = () => /** @type {HTMLInputElement | null} */ (byId('photo-ids'));
  const modelSelect = () => /** @type {HTMLSelectElement | null} */ (byId('model-select'));

  /** @type {{ key: number, element: HTMLElement, status: 'uploading' | 'ready', id: string | undefined }[]} Photos in the tray, in order. */
  let photos = [];
  let nextKey = 1;
  let sendWhenUploaded = false;

  const showError = (/** @type {string} */ text) => showLine('photo-error', text);

  /** The picked model's refusal ("llama3.2 cannot see photos. Models here that can: …"), or '' when it can see. */
  function visionRefusal() {
    const option = modelSelect()?.selectedOptions[0];
    // No wording: the server could not say in time which models see; it decides at send.
    const attach = byId('photo-attach');
    const wording = attach?.getAttribute('data-photo-refusal');
    if (!attach || !wording || !option || !option.value || option.hasAttribute('data-vision')) return '';
    // Short names from the server (data-model-names): the naming rule lives in src/photos/vision-models.ts only.
    const names = JSON.parse(attach.getAttribute('data-model-names') || '{}');
    return wording.replace('{model}', names[option.value] ?? option.value);
  }

  function checkModel() {
    const refusal = photos.length > 0 ? visionRefusal() : '';
    showError(refusal);
    return refusal;
  }

  function syncTray() {
    const element = tray();
    if (!element) return;
    element.hidden = photos.length === 0;
    const ids = idsField();
    if (ids) ids.value = photos.filter((photo) => photo.status === 'ready').map((photo) => photo.id).join(',');
    form()?.classList.toggle('has-photos', photos.length > 0);
    // Send was pressed: it goes once the uploads are done (the button dims meanwhile).
    const sendNow = sendWhenUploaded && photos.every((photo) => photo.status === 'ready');
    if (sendNow) sendWhenUploaded = false;
    form()?.classList.toggle('is-waiting-for-photos', sendWhenUploaded);
    photos.forEach((photo, index) => {
      const image = photo.element.querySelector('img');
      if (image) image.alt = `Photo ${index + 1} to send`;
      photo.element.querySelector('.photo-remove')?.setAttribute('aria-label', `Remove photo ${index + 1}`);
    });
    if (sendNow) form()?.requestSubmit();
  }

  function removePhoto(/** @type {number} */ key) {
    const photo = photos.find((candidate) => candidate.key === key);
    if (!photo) return;
    if (photo.id) forget(photo.id);
    photo.element.remove();
    photos = photos.filter((candidate) => candidate !== photo);
    if (photos.length === 0) sendWhenUploaded = false;
    syncTray();
    checkModel();
  }

  function clearTray() {
    photos.forEach((photo) => photo.element.remove());
    photos = [];
    sendWhenUploaded = false;
    showError('');
    syncTray();
  }

  function draw(/** @type {CanvasImageSource} */ source, /** @type {number} */ width, /** @type {number} */ height) {
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no canvas');
    // JPEG has no transparency: a transparent PNG goes on white, not black.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    context.imageSmoothingQuality = 'high';
    context.drawImage(source, 0, 0, width, height);
    return canvas;
  }

  /** The photo as a JPEG of at most 1,600 px on its long side, and a small data: URL to show in the tray. */
  async function shrink(/** @type {Blob} */ file) {
    // Every browser with <dialog> and popover (which the chat page needs) decodes here, turned as the camera held it.
    const source = await createImageBitmap(file, { imageOrientation: 'from-image' });
    const { width, height } = source;
    if (!width || !height) throw new Error('no size');
    const fit = (/** @type {CanvasImageSource} */ from, /** @type {number} */ side) => {
      const factor = Math.min(1, side / Math.max(width, height));
      return draw(from, Math.max(1, Math.round(width * factor)), Math.max(1, Math.round(height * factor)));
    };
    const canvas = fit(source, maxLongSide);
    const scaled = (/** @type {number} */ side) => fit(canvas, side);
    // A data: URL, which the page's Content-Security-Policy allows for images (blob: is not).
    const preview = scaled(previewSide).toDataURL('image/jpeg', 0.7);
    source.close();
    const jpeg = (/** @type {HTMLCanvasElement} */ target, /** @type {number} */ quality) =>
      new Promise((/** @type {(blob: Blob) => void} */ resolve, reject) => target.toBlob((result) => (result ? resolve(result) : reject(new Error('no JPEG'))), 'image/jpeg', quality));
    return { blob: await jpeg(canvas, jpegQuality), thumbnail: await jpeg(scaled(thumbnailSide), 0.8), preview };
  }

  /** Sends a photo (or its thumbnail) to the server. */
  const sendPhoto = (/** @type {string} */ method, /** @type {string} */ url, /** @type {Blob} */ blob) =>
    fetch(url, { method, headers: { 'content-type': blob.type || 'image/jpeg', 'x-csrf-token': csrfToken() }, body: blob, credentials: 'same-origin' });
  /** Uploaded but not wanted: gone from the server now (else it is pruned after a day). */
  const forget = (/** @type {string} */ id) => void fetch(`/attachments/${id}`, { method: 'DELETE', headers: { 'x-csrf-token': csrfToken() } }).catch(() => {});

  /** @returns {Promise<string>} */
  async function upload(/** @type {Blob} */ blob) {
    const response = await sendPhoto('POST', '/attachments', blob);
    const answer = await response.json().catch(() => ({}));
    if (response.status === 401) throw new Error('You were logged out. Log in again, then attach the photo.');
    if (!response.ok || !answer.id) throw new Error(answer.error || `The photo could not be uploaded (${response.status}). Try again.`);
    return answer.id;
  }

  /** A tray item from the page's template (photo-composer.eta); its ✕ removes it. */
  function trayItem(/** @type {number} */ key) {
    const template = /** @type {HTMLTemplateElement} */ (byId('photo-tray-item'));
    const item = /** @type {HTMLElement} */ (template.content.firstElementChild?.cloneNode(true));
    item.querySelector('.photo-remove')?.addEventListener('click', () => removePhoto(key));
    return item;
  }

  async function addFile(/** @type {File} */ file) {
    const key = nextKey++;
    const element = trayItem(key);
    /** @type {(typeof photos)[number]} */
    const photo = { key, element, status: 'uploading', id: undefined };
    photos.push(photo);
    tray()?.append(element);
    syncTray();
    const name = file.name ? `“${file.name}”` : 'That file';
    try {
      let shrunk;
      try {
        shrunk = await shrink(file);
      } catch {
        throw new Error(`${name} is not a photo this browser can open. Attach a JPEG, PNG or WebP image.`);
      }
      /** @type {HTMLImageElement} */ (element.querySelector('img')).src = shrunk.preview;
      photo.id = await upload(shrunk.blob);
      // The thread shows this small version; without it (a failed upload) it shows the photo itself.
      await sendPhoto('PUT', `/attachments/${photo.id}/thumbnail`, shrunk.thumbnail).catch(() => {});
      if (!photos.includes(photo)) {
        return forget(photo.id); // Removed while it uploaded.
      }
      photo.status = 'ready';
      element.classList.remove('is-uploading');
      syncTray();
    } catch (error) {
      removePhoto(key);
      showError(error instanceof Error && error.message !== 'Failed to fetch' ? error.message : 'The photo could not be uploaded: the server is not answering. Try again.');
    }
  }

  function addFiles(/** @type {Iterable<File>} */ files) {
    showError('');
    const room = perMessage - photos.length;
    const picked = [...files];
    picked.slice(0, Math.max(0, room)).forEach((file) => void addFile(file));
    // After the adds, so their own errors (if any) come later and the limit is still said.
    if (picked.length > room) showError(`At most ${perMessage} photos can go with one message; ${picked.length - Math.max(0, room)} left out.`);
    else checkModel();
  }

  document.addEventListener('click', (event) => {
    if (!window.hearth.within(event, '#photo-attach')) return;
    if (photos.length >= perMessage) return showError(`At most ${perMessage} photos can go with one message. Remove one first.`);
    byId('photo-input')?.click();
  });

  document.addEventListener('change', (event) => {
    if (event.target === modelSelect()) return void checkModel();
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || input.id !== 'photo-input') return;
    addFiles(input.files ?? []);
    // Picking the same photo again still fires a change.
    input.value = '';
  });

  // Before chat.js and htmx see the submit (window, capture): a message waits for its photos' uploads, and is never sent to a model that cannot see them.
  window.addEventListener('submit', (event) => {
    if (event.target !== form() || photos.length === 0) return;
    const refusal = checkModel();
    const uploading = photos.some((photo) => photo.status !== 'ready');
    if (!refusal && !uploading) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (!refusal && uploading) {
      sendWhenUploaded = true;
      showError('');
      syncTray();
    }
  }, true);

  // The server saved the message: its photos are in the thread now.
  document.addEventListener('hearth:message-accepted', clearTray);

  // Photos can be pasted into the message box too, where there is a keyboard.
  document.addEventListener('paste', (event) => {
    if (event.target !== byId('chat-input')) return;
    const files = [...(event.clipboardData?.files ?? [])].filter((file) => file.type.startsWith('image/'));
    if (files.length > 0) {
      event.preventDefault();
      addFiles(files);
    }
  });

  const attach = byId('photo-attach');
  if (attach) attach.hidden = false;
})();
