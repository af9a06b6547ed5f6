// The full-screen photo viewer: a tap on a photo in a message opens it in a modal <dialog> over
// the chat, with Close (Escape too), and Previous/Next (arrow keys, a swipe) when the message has
// several. Without scripts, or with a modifier key held, the link opens the photo as before.
(() => {
  'use strict';
  const swipeDistance = 50;

  /** The photos of the message being viewed: [{ url, thumbnailUrl, alt }], and which one shows. */
  let photos = [];
  let position = 0;
  /** The href of the photo shown, to give focus back to its thumbnail on close (the message may have been re-rendered). */
  let shownHref = '';
  let swipeStart;

  function button(className, label, text) {
    const element = document.createElement('button');
    element.type = 'button';
    element.className = `photo-viewer-button ${className}`;
    element.setAttribute('aria-label', label);
    element.textContent = text;
    return element;
  }

  /** Made once, on first use, and kept at the end of <body> (nothing swaps it out). */
  function viewer() {
    const existing = document.getElementById('photo-viewer');
    if (existing) return existing;
    const dialog = document.createElement('dialog');
    dialog.id = 'photo-viewer';
    dialog.className = 'photo-viewer';
    dialog.setAttribute('aria-labelledby', 'photo-viewer-position');

    const bar = document.createElement('div');
    bar.className = 'photo-viewer-bar';
    const label = document.createElement('p');
    label.id = 'photo-viewer-position';
    label.className = 'photo-viewer-position';
    const close = button('photo-viewer-close', 'Close photo', '✕');
    close.autofocus = true;
    close.addEventListener('click', () => closeViewer(dialog));
    bar.append(label, close);

    const stage = document.createElement('figure');
    stage.className = 'photo-viewer-stage';
    const image = document.createElement('img');
    image.className = 'photo-viewer-image';
    image.decoding = 'async';
    const caption = document.createElement('figcaption');
    caption.className = 'photo-viewer-caption';
    // The same words as the image's alt: shown for the eyes, not read out twice.
    caption.setAttribute('aria-hidden', 'true');
    stage.append(image, caption);

    const steps = document.createElement('div');
    steps.className = 'photo-viewer-steps';
    const previous = button('photo-viewer-previous', 'Previous photo', '‹');
    const next = button('photo-viewer-next', 'Next photo', '›');
    previous.addEventListener('click', () => step(-1));
    next.addEventListener('click', () => step(1));
    steps.append(previous, next);

    dialog.append(bar, stage, steps);
    // A tap on the dark space around the photo closes, as on a phone's own gallery.
    // The image box fills the stage and the photo is fitted inside it (object-fit: contain), so
    // the bands beside the photo belong to the <img>: a tap there counts as outside the photo.
    dialog.addEventListener('click', (event) => {
      const onBands = event.target === image && !onPaintedPhoto(image, event.clientX, event.clientY);
      if (event.target === dialog || event.target === stage || onBands) closeViewer(dialog);
    });
    dialog.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowLeft') step(-1);
      else if (event.key === 'ArrowRight') step(1);
    });
    stage.addEventListener('pointerdown', (event) => {
      swipeStart = event.isPrimary ? { x: event.clientX, y: event.clientY } : undefined;
    });
    stage.addEventListener('pointerup', (event) => {
      if (!swipeStart) return;
      const dx = event.clientX - swipeStart.x;
      const dy = event.clientY - swipeStart.y;
      swipeStart = undefined;
      if (Math.abs(dx) >= swipeDistance && Math.abs(dx) > Math.abs(dy) * 1.5) step(dx < 0 ? 1 : -1);
    });
    stage.addEventListener('pointercancel', () => {
      swipeStart = undefined;
    });
    // Escape closes the dialog by itself; its close event comes a moment later.
    dialog.addEventListener('close', returnFocus);
    document.body.append(dialog);
    return dialog;
  }

  /** Whether a point is on the photo as painted inside its box (object-fit: contain). */
  function onPaintedPhoto(image, x, y) {
    const box = image.getBoundingClientRect();
    if (!image.naturalWidth || !image.naturalHeight) return true;
    const scale = Math.min(box.width / image.naturalWidth, box.height / image.naturalHeight);
    const width = image.naturalWidth * scale;
    const height = image.naturalHeight * scale;
    const left = box.left + (box.width - width) / 2;
    const top = box.top + (box.height - height) / 2;
    return x >= left && x <= left + width && y >= top && y <= top + height;
  }

  function show() {
    const dialog = viewer();
    const photo = photos[position];
    const image = dialog.querySelector('.photo-viewer-image');
    shownHref = photo.url;
    // The thumbnail is already loaded: shown at once, then the whole photo replaces it when it
    // has arrived. The image box is the whole stage (object-fit), so nothing moves as it does.
    image.src = photo.thumbnailUrl;
    image.alt = photo.alt;
    if (photo.url !== photo.thumbnailUrl) {
      const full = new Image();
      full.onload = () => {
        if (shownHref === photo.url) image.src = photo.url;
      };
      full.src = photo.url;
    }
    const several = photos.length > 1;
    dialog.querySelector('.photo-viewer-caption').textContent = photo.alt;
    dialog.querySelector('.photo-viewer-position').textContent = several ? `Photo ${position + 1} of ${photos.length}` : 'Photo';
    dialog.querySelector('.photo-viewer-steps').hidden = !several;
    const previous = dialog.querySelector('.photo-viewer-previous');
    const next = dialog.querySelector('.photo-viewer-next');
    const previousOff = position === 0;
    const nextOff = position === photos.length - 1;
    // A focused button that is disabled loses focus to <body>, outside the dialog (Chromium 150
    // at once, later ones a moment after): focus moves first, to the other arrow, else to Close.
    const focused = document.activeElement;
    if ((focused === previous && previousOff) || (focused === next && nextOff)) {
      const other = focused === previous ? next : previous;
      const otherOff = focused === previous ? nextOff : previousOff;
      (otherOff ? dialog.querySelector('.photo-viewer-close') : other).focus();
    }
    previous.disabled = previousOff;
    next.disabled = nextOff;
  }

  function step(direction) {
    const target = position + direction;
    if (target < 0 || target >= photos.length) return;
    position = target;
    show();
  }

  function closeViewer(dialog) {
    dialog.close();
    returnFocus();
  }

  /** To the thumbnail of the photo last shown, which may not be the one that opened the viewer. */
  function returnFocus() {
    const link = [...document.querySelectorAll('#chat-thread a.message-photo')].find((candidate) => candidate.getAttribute('href') === shownHref);
    link?.focus();
  }

  function open(link) {
    const links = [...(link.closest('.message-photos')?.querySelectorAll('a.message-photo') ?? [link])];
    photos = links.map((candidate) => {
      const thumbnail = candidate.querySelector('img');
      return {
        url: candidate.getAttribute('href'),
        thumbnailUrl: thumbnail?.getAttribute('src') ?? candidate.getAttribute('href'),
        alt: thumbnail?.alt || 'Photo',
      };
    });
    position = Math.max(0, links.indexOf(link));
    const dialog = viewer();
    show();
    if (!dialog.open) dialog.showModal();
  }

  document.addEventListener('click', (event) => {
    if (!(event.target instanceof Element)) return;
    const link = event.target.closest('#chat-thread a.message-photo');
    // Ctrl/Cmd/Shift-click and middle clicks still open a tab, as links do.
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (typeof HTMLDialogElement !== 'function') return;
    event.preventDefault();
    open(link);
  });
})();
