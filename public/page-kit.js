// @ts-check
// What the chat page's scripts share, as window.hearth (loaded before them): one copy of each.
(() => {
  'use strict';
  const byId = (/** @type {string} */ id) => document.getElementById(id);
  const thread = () => byId('chat-thread');

  /** Says a line through #chat-status: cleared, then set in the next frame, so a repeat is still announced. */
  function announce(/** @type {string} */ text) {
    const status = byId('chat-status');
    if (!status) return;
    status.textContent = '';
    requestAnimationFrame(() => { status.textContent = text; });
  }

  /** The element matching `selector` that an event happened in (or null): the scripts' delegated handlers. */
  const within = (/** @type {Event} */ event, /** @type {string} */ selector) =>
    event.target instanceof Element ? /** @type {HTMLElement | null} */ (event.target.closest(selector)) : null;

  /** Shows a line of text by its id, or hides it when the text is empty. */
  function showLine(/** @type {string} */ id, /** @type {string} */ text) {
    const line = byId(id);
    if (line) [line.textContent, line.hidden] = [text, !text];
  }

  /** Stops a socket message in htmx's hands: one it is about to send, or one it received and would swap. */
  const cancelSocketMessage = (/** @type {CustomEvent<HtmxWsDetail>} */ event) => {
    event.detail.cancelled = true;
    event.preventDefault();
  };

  /** Every form on the page carries the same token. */
  const csrfToken = () => /** @type {HTMLInputElement | null} */ (document.querySelector('input[name="_csrf"]'))?.value ?? '';

  /**
   * Runs `change(thread)` once, when the thread's children next change (htmx fires its after-swap events on
   * the detached element it replaced) and `when()` holds (another swap may land first). Forgotten after 5 s.
   * @type {Hearth['afterThreadChange']}
   */
  const afterThreadChange = (change, when = () => true) => {
    const element = thread();
    if (!element) return;
    const observer = new MutationObserver(() => {
      if (!when()) return;
      observer.disconnect();
      change(element);
    });
    observer.observe(element, { childList: true });
    setTimeout(() => observer.disconnect(), 5000);
  };

  /** The page shows a window of the chat short of its newest end (opened at a search match, or a version switch far up). */
  const isPartialWindow = () => Boolean(thread()?.querySelector('.load-later'));

  /** The end of the thread is (nearly) in sight. */
  const isNearBottom = (/** @type {HTMLElement} */ element) => element.scrollHeight - element.scrollTop - element.clientHeight < 80;

  // Reading a scroll position forces a layout, and a fast reply changes the thread many times a
  // frame: the scripts hook in here instead, and the loop runs once per painted frame (where the
  // layout is due anyway), only when asked. Hooks run in the order added: chat.js first, so its
  // DOM changes come before anyone reads.
  /** @type {((frame: HearthFrame) => void)[]} */
  const hooks = [];
  let pending = false;
  let scrolled = false;

  /** `hook(frame)`: frame.scrolled (since the last frame), frame.position() ({ top, nearBottom }), frame.scrollToEnd(). */
  const onFrame = (/** @type {(frame: HearthFrame) => void} */ hook) => void hooks.push(hook);

  function requestFrame() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(runFrame);
  }

  function runFrame() {
    pending = false;
    const element = thread();
    if (!element) return;
    let position;
    const frame = {
      thread: element,
      scrolled,
      // Read on the first hook that asks, again after a scroll (cheap: the layout is clean by then).
      position: () => (position ??= { top: element.scrollTop, nearBottom: isNearBottom(element) }),
      scrollToEnd() {
        element.scrollTop = element.scrollHeight;
        position = undefined;
      },
    };
    scrolled = false;
    for (const hook of hooks) hook(frame);
  }

  document.addEventListener('DOMContentLoaded', () => {
    thread()?.addEventListener('scroll', () => {
      scrolled = true;
      requestFrame();
    }, { passive: true });
  });

  window.hearth = Object.freeze({ byId, thread, showLine, announce, within, cancelSocketMessage, csrfToken, afterThreadChange, isPartialWindow, isNearBottom, onFrame, requestFrame });
})();
