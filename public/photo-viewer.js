// @ts-check
// The full-screen photo viewer: a tap on a photo in a message opens it in the page's modal <dialog>
// (views/chat.eta) over the chat, with Close and Escape (the dialog's own), and Previous/Next (arrow
// keys, a swipe) when the message has several. Without scripts, or with a modifier key held, the
// link opens the photo.
(() => {
  'use strict';
  const swipeDistance = 50;
  const dialog = /** @type {HTMLDialogElement | null} */ (document.getElementById('photo-viewer'));
  if (!dialog) return;
  const part = (/** @type {string} */ name) => /** @type {HTMLElement} */ (dialog.querySelector(`.photo-viewer-${name}`));
  const image = /** @type {HTMLImageElement} */ (part('image'));
  const stage = part('stage');
  const previous = /** @type {HTMLButtonElement} */ (part('previous'));
  const next = /** @type {HTMLButtonElement} */ (part('next'));

  /** @type {{ url: string, thumbnailUrl: string, alt: string }[]} The photos of the message being viewed. */
  let photos = [];
  let position = 0;
  /** The href of the photo shown, to give focus back to its thumbnail on close (the message may have been re-rendered). */
  let shownHref = '';
  /** @type {{ x: number, y: number } | undefined} */
  let swipeStart;

  /** Whether a point is on the photo as painted inside its box (object-fit: contain). */
  function onPaintedPhoto(/** @type {number} */ x, /** @type {number} */ y) {
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
    const photo = photos[position];
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
    part('caption').textContent = photo.alt;
    part('position').textContent = several ? `Photo ${position + 1} of ${photos.length}` : 'Photo';
    part('steps').hidden = !several;
    const previousOff = position === 0;
    const nextOff = position === photos.length - 1;
    // A focused button that is disabled loses focus to <body>, outside the dialog (Chromium 150
    // at once, later ones a moment after): focus moves first, to the other arrow, else to Close.
    const focused = document.activeElement;
    if ((focused === previous && previousOff) || (focused === next && nextOff)) {
      const otherOff = focused === previous ? nextOff : previousOff;
      (otherOff ? part('close') : focused === previous ? next : previous).focus();
    }
    previous.disabled = previousOff;
    next.disabled = nextOff;
  }

  function step(/** @type {number} */ direction) {
    const target = position + direction;
    if (target < 0 || target >= photos.length) return;
    position = target;
    show();
  }

  /** To the thumbnail of the photo last shown, which may not be the one that opened the viewer. */
  function returnFocus() {
    const links = /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll('#chat-thread a.message-photo'));
    [...links].find((candidate) => candidate.getAttribute('href') === shownHref)?.focus();
  }

  function open(/** @type {HTMLAnchorElement} */ link) {
    const links = /** @type {HTMLAnchorElement[]} */ ([...(link.closest('.message-photos')?.querySelectorAll('a.message-photo') ?? [link])]);
    photos = links.map((candidate) => {
      const thumbnail = candidate.querySelector('img');
      const url = candidate.getAttribute('href') ?? '';
      return { url, thumbnailUrl: thumbnail?.getAttribute('src') ?? url, alt: thumbnail?.alt || 'Photo' };
    });
    position = Math.max(0, links.indexOf(link));
    show();
    if (!dialog?.open) dialog?.showModal();
  }

  // A tap on the dark space around the photo closes, as on a phone's own gallery. The image box
  // fills the stage and the photo is fitted inside it (object-fit: contain), so the bands beside
  // the photo belong to the <img>: a tap there counts as outside the photo.
  dialog.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (target === previous || target === next) return step(target === next ? 1 : -1);
    const onBands = target === image && !onPaintedPhoto(event.clientX, event.clientY);
    if (target === dialog || target === stage || onBands) dialog.close();
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
  // Close (command="close", chat-header.js for browsers without commands), Escape and the taps
  // above all close the dialog; its close event, a moment later, gives focus back.
  dialog.addEventListener('close', returnFocus);

  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('#chat-thread a.message-photo') : null;
    // Ctrl/Cmd/Shift-click and middle clicks still open a tab, as links do.
    if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    open(link);
  });
})();
