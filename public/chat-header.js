// @ts-check
// The chat page's phone comforts: the title in the header (tap to rename), message times
// (relative, exact on tap), "jump to latest", opening a search result at its message, and the
// example prompts of an empty chat. chat.js keeps the socket and the input; this file only reads
// its events. Text from messages is only ever read and wrapped as text nodes, never parsed as HTML.
(() => {
  'use strict';
  const { hearth } = window;
  const body = document.body;
  const byId = (/** @type {string} */ id) => document.getElementById(id);
  /** A field of the page by id (the message box, the title's field, the conversation's id). */
  const field = (/** @type {string} */ id) => /** @type {HTMLInputElement | null} */ (byId(id));
  const thread = () => byId('chat-thread');

  // ---- Message times --------------------------------------------------------------------------
  const clockFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
  const weekdayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
  const dayFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
  const dayWithYearFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
  const exactFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });
  const dayMs = 86_400_000;
  const startOfDay = (/** @type {Date} */ date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();

  /** "just now", "2 min ago", "today 14:05", "yesterday 14:05", "Mon 14:05", "3 Nov 14:05", "3 Nov 2025" — in this browser's time zone. */
  function relativeTime(/** @type {Date} */ date, /** @type {Date} */ now) {
    const seconds = (now.getTime() - date.getTime()) / 1000;
    if (seconds < 45) return 'just now';
    if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min ago`;
    const days = Math.round((startOfDay(now) - startOfDay(date)) / dayMs);
    const clock = clockFormat.format(date);
    if (days === 0) return `today ${clock}`;
    if (days === 1) return `yesterday ${clock}`;
    if (days > 1 && days < 7) return `${weekdayFormat.format(date)} ${clock}`;
    if (date.getFullYear() === now.getFullYear()) return `${dayFormat.format(date)} ${clock}`;
    return dayWithYearFormat.format(date);
  }

  function showTime(/** @type {Element} */ button, /** @type {Date} */ now) {
    const time = button.querySelector('time');
    const date = new Date(time?.getAttribute('datetime') ?? '');
    if (!time || Number.isNaN(date.getTime())) return;
    const exact = exactFormat.format(date);
    time.title = exact;
    time.textContent = button.getAttribute('aria-pressed') === 'true' ? exact : relativeTime(date, now);
  }

  function refreshTimes(root = document) {
    const now = new Date();
    root.querySelectorAll('.chat-message-time').forEach((button) => showTime(button, now));
  }

  // ---- Jump to latest -------------------------------------------------------------------------
  const { isPartialWindow } = hearth;
  let unseenMessages = false;

  /** `nearBottom`: measured already in this frame; read here when not given. */
  function updateJumpToLatest(/** @type {boolean | undefined} */ nearBottom = undefined) {
    const button = byId('jump-to-latest');
    const element = thread();
    if (!button || !element) return;
    const atBottom = (nearBottom ?? hearth.isNearBottom(element)) && !isPartialWindow();
    if (atBottom) unseenMessages = false;
    const show = !atBottom && (body.classList.contains('is-streaming') || unseenMessages);
    if (show) button.style.setProperty('--form-height', `${byId('chat-form')?.offsetHeight ?? 62}px`);
    // Only when it changes: writing the attribute restyles the button, once per frame while a reply streams.
    if (button.hidden !== !show) button.hidden = !show;
  }

  function jumpToLatest() {
    const element = thread();
    if (!element) return;
    if (isPartialWindow()) {
      // The newest messages are not on this page: open the chat at its end.
      location.assign(`/c/${encodeURIComponent(field('conversation-id')?.value ?? '')}`);
      return;
    }
    unseenMessages = false;
    element.scrollTop = element.scrollHeight;
    updateJumpToLatest();
    byId('chat-input')?.focus({ preventScroll: true });
  }

  // ---- A window opened at a search match --------------------------------------------------------
  // The server marked the searched words in the message (src/web/chat/search-marks.ts).
  function openAtHighlight() {
    const element = thread();
    const id = element?.dataset.highlight;
    const message = id ? byId(`message-${id}`) : null;
    if (!element || !message) return;
    message.classList.add('chat-message-highlight');
    const target = message.querySelector('.search-mark') ?? message;
    // Centre the first marked word (in a long message the match may be far down it).
    element.scrollTop += target.getBoundingClientRect().top - element.getBoundingClientRect().top - element.clientHeight / 3;
  }

  // While the window is not at the newest end, live additions would land after a gap: hold them
  // back and offer the jump instead. Sending from here posts the form and opens the chat's end.
  document.addEventListener('htmx:ws:before:connection', (event) => {
    if (isPartialWindow()) event.detail.connection.url += '&window=partial';
  });
  // The socket's HTML comes as partials, each with its target: those that add a message are read here.
  document.addEventListener('htmx:before:swap', (event) => {
    const { ctx, tasks } = event.detail;
    if (ctx.sourceElement?.id !== 'chat-app') return;
    const partial = isPartialWindow();
    for (const task of [...tasks]) {
      // (A re-rendered thread, innerHTML, replaces the window: it is not an added message.)
      const addsMessage = task.target?.id === 'chat-thread' && task.swapSpec.style !== 'innerHTML' && task.fragment.firstElementChild?.tagName === 'ARTICLE';
      // A message from elsewhere (another device) while the person reads further up.
      const element = thread();
      if (addsMessage && element && !hearth.isNearBottom(element)) unseenMessages = true;
      if (partial && (addsMessage || !task.target)) {
        tasks.splice(tasks.indexOf(task), 1);
        updateJumpToLatest();
      }
    }
  });
  document.addEventListener('htmx:ws:before:message:outgoing', (event) => {
    if (event.detail.cancelled || event.detail.message.values?.type !== 'send' || !isPartialWindow()) return;
    event.detail.cancelled = true;
    event.preventDefault();
    /** @type {HTMLFormElement | null} */ (byId('chat-form'))?.submit();
  });

  // ---- Renaming ------------------------------------------------------------------------------
  // The field opens here; Save posts through htmx and the server answers with the title area
  // again (views/partials/chat-title.eta): renamed, or open with its refusal in its own words.
  function openRename() {
    const form = byId('chat-title-form');
    const input = field('chat-title-input');
    if (!form || !input) return;
    input.value = byId('chat-title-text')?.textContent ?? '';
    showRenameError('');
    // The heading stays (for screen readers, the page's one h1), only out of sight while the field is open.
    byId('chat-title')?.classList.add('visually-hidden');
    form.hidden = false;
    input.focus();
    input.select();
  }

  function closeRename() {
    const form = byId('chat-title-form');
    if (!form) return;
    form.hidden = true;
    byId('chat-title')?.classList.remove('visually-hidden');
    byId('chat-title-button')?.focus();
  }

  function showRenameError(/** @type {string} */ text) {
    const error = byId('chat-title-error');
    if (!error) return;
    error.textContent = text;
    error.hidden = !text;
  }

  // No answer at all, or a proxy's error page (not swapped: hx-status:5xx), is said here.
  document.addEventListener('htmx:error', (event) => {
    if (event.target === byId('chat-title-form')) showRenameError('The server could not be reached; the title was not saved.');
  });
  document.addEventListener('htmx:response:error', (event) => {
    const status = event.detail.ctx.response.status;
    if (event.target === byId('chat-title-form') && status >= 500) showRenameError(`The title was not saved (${status}).`);
  });

  // ---- Wiring ---------------------------------------------------------------------------------
  document.addEventListener('click', (event) => {
    const time = hearth.within(event, '.chat-message-time');
    if (time) {
      time.setAttribute('aria-pressed', time.getAttribute('aria-pressed') === 'true' ? 'false' : 'true');
      showTime(time, new Date());
      return;
    }
    if (hearth.within(event, '#chat-title-button')) return openRename();
    if (hearth.within(event, '#chat-title-cancel')) return closeRename();
    if (hearth.within(event, '#jump-to-latest')) return jumpToLatest();
    const example = hearth.within(event, '.chat-example');
    if (example) {
      const input = field('chat-input');
      if (!input) return;
      input.value = example.dataset.prompt ?? '';
      // chat.js grows the box on input.
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.focus();
      input.setSelectionRange(input.value.length, input.value.length);
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && event.target === byId('chat-title-input')) {
      event.preventDefault();
      closeRename();
    }
  });

  // Socket messages, the person's scrolling and streaming starting or ending all change what the
  // header shows; a phone gets several per frame, so it is worked out once, in the page's frame
  // loop (page-kit.js), which reads the thread's position once for chat.js and this file.
  // New and replaced messages get their times from the thread's MutationObserver below; writing
  // every time again here would make the browser restyle the whole thread before that read.
  // Streaming starts and ends with a socket message too: chat.js's hook, first in the frame, has
  // set <body>'s class by the time this one reads it.
  let jumpOutdated = false;
  hearth.onFrame((frame) => {
    if (!jumpOutdated && !frame.scrolled) return;
    jumpOutdated = false;
    updateJumpToLatest(frame.position().nearBottom);
  });
  document.addEventListener('htmx:ws:after:message:incoming', () => {
    jumpOutdated = true;
    hearth.requestFrame();
  });
  document.addEventListener('DOMContentLoaded', () => {
    refreshTimes();
    // Pages loaded above or below get their times too (htmx's swap events fire on the detached loader).
    const element = thread();
    if (element) {
      new MutationObserver((changes) => {
        const now = new Date();
        for (const change of changes) {
          for (const node of change.addedNodes) {
            if (node instanceof Element) node.querySelectorAll('.chat-message-time').forEach((button) => showTime(button, now));
          }
        }
      }).observe(element, { childList: true });
    }
    openAtHighlight();
    updateJumpToLatest();
    setInterval(() => refreshTimes(), 60_000);
  });
})();
