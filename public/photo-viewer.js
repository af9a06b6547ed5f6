// @ts-check
// The full-screen photo viewer: a tapped photo's hx-get fills the page's <dialog> with its message's slides
// (views/partials/photo-viewer.eta); here it opens, steps with ‹ ›, the arrow keys or a swipe, and closes on a
// tap beside the photo (Close and Escape are the dialog's own).
(() => {
  'use strict';
  const swipeDistance = 50;
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById('photo-viewer'));
  if (!dialog) return;
  const { within } = window.hearth;
  /** @type {{ x: number, y: number } | undefined} */
  let swipeStart;

  /** Whether a point is on the photo as painted inside its box (object-fit: contain). */
  function onPaintedPhoto(/** @type {HTMLImageElement} */ image, /** @type {number} */ x, /** @type {number} */ y) {
    const box = image.getBoundingClientRect();
    if (!image.naturalWidth || !image.naturalHeight) return true;
    const scale = Math.min(box.width / image.naturalWidth, box.height / image.naturalHeight);
    const width = image.naturalWidth * scale;
    const height = image.naturalHeight * scale;
    return Math.abs(x - box.left - box.width / 2) <= width / 2 && Math.abs(y - box.top - box.height / 2) <= height / 2;
  }

  /** The slide beside; focus stays on the same control there, or the other arrow where that one is off, or Close. */
  function step(/** @type {number} */ direction) {
    const slides = /** @type {HTMLElement[]} */ ([...dialog.querySelectorAll('.photo-viewer-slide')]);
    const from = slides.findIndex((slide) => !slide.hidden);
    const to = slides[from + direction];
    if (!to) return;
    const focused = /photo-viewer-(previous|next|close)/.exec(dialog.contains(document.activeElement) ? document.activeElement?.className ?? '' : '')?.[1];
    slides[from].hidden = true;
    to.hidden = false;
    if (!focused) return;
    const choices = [focused, focused === 'next' ? 'previous' : 'next', 'close'].map((name) => to.querySelector(`.photo-viewer-${name}`));
    /** @type {HTMLButtonElement | undefined} */ (choices.find((button) => button instanceof HTMLButtonElement && !button.disabled))?.focus();
  }

  // The slides are in: open (an open viewer just shows them).
  document.addEventListener('htmx:after:swap', (event) => {
    if (event.detail.ctx.target === dialog && !dialog.open) dialog.showModal();
  });
  // A tap on the dark space around the photo closes, as in a phone's gallery (a fitted photo's bands are outside it).
  dialog.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (within(event, '.photo-viewer-previous, .photo-viewer-next')) return step(within(event, '.photo-viewer-next') ? 1 : -1);
    const image = target instanceof HTMLImageElement && target.classList.contains('photo-viewer-image') ? target : null;
    if (target === dialog || target?.matches('.photo-viewer-slide, .photo-viewer-stage') || (image && !onPaintedPhoto(image, event.clientX, event.clientY))) dialog.close();
  });
  dialog.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') step(event.key === 'ArrowLeft' ? -1 : 1);
  });
  dialog.addEventListener('pointerdown', (event) => {
    swipeStart = event.isPrimary && within(event, '.photo-viewer-stage') ? { x: event.clientX, y: event.clientY } : undefined;
  });
  dialog.addEventListener('pointerup', (event) => {
    if (!swipeStart) return;
    const dx = event.clientX - swipeStart.x;
    const dy = event.clientY - swipeStart.y;
    swipeStart = undefined;
    if (Math.abs(dx) >= swipeDistance && Math.abs(dx) > Math.abs(dy) * 1.5) step(dx < 0 ? 1 : -1);
  });
  dialog.addEventListener('pointercancel', () => { swipeStart = undefined; });
  // Focus goes back to the thumbnail of the photo last shown, which may not be the one that opened it.
  dialog.addEventListener('close', () => {
    const href = dialog.querySelector('.photo-viewer-slide:not([hidden]) .photo-viewer-image')?.getAttribute('src');
    /** @type {HTMLElement | undefined} */ ([...document.querySelectorAll('#chat-thread a.message-photo')].find((link) => link.getAttribute('href') === href))?.focus();
  });
})();
