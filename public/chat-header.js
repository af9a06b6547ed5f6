// @ts-check
// The chat page's comforts that need a script: "jump to latest", a window opened at a search match,
// the example prompts of an empty chat, and what the rename dialog (views/partials/chat-title.eta)
// cannot say by itself. chat.js keeps the socket and the input; this file only reads its events.
(() => {
  'use strict';
  const { hearth } = window;
  const { isPartialWindow, byId, thread, within } = hearth;
  /** A field of the page by id (the message box, the title's field, the conversation's id). */
  const field = (/** @type {string} */ id) => /** @type {HTMLInputElement | null} */ (byId(id));

  // ---- Jump to latest -------------------------------------------------------------------------
  let unseenMessages = false;

  /** `nearBottom`: measured already in this frame; read here when not given. */
  function updateJumpToLatest(/** @type {boolean | undefined} */ nearBottom = undefined) {
    const button = byId('jump-to-latest');
    const element = thread();
    if (!button || !element) return;
    const atBottom = (nearBottom ?? hearth.isNearBottom(element)) && !isPartialWindow();
    if (atBottom) unseenMessages = false;
    const show = !atBottom && (document.body.classList.contains('is-streaming') || unseenMessages);
    if (show) button.style.setProperty('--form-height', `${byId('chat-form')?.offsetHeight ?? 62}px`);
    // Only when it changes: writing the attribute restyles the button, once per frame while a reply streams.
    if (button.hidden !== !show) button.hidden = !show;
  }

  function jumpToLatest() {
    const element = thread();
    // The newest messages are not on this page: open the chat at its end.
    if (isPartialWindow()) return location.assign(`/c/${encodeURIComponent(field('conversation-id')?.value ?? '')}`);
    if (!element) return;
    unseenMessages = false;
    element.scrollTop = element.scrollHeight;
    updateJumpToLatest();
    byId('chat-input')?.focus({ preventScroll: true });
  }

  // ---- A window opened at a search match --------------------------------------------------------
  // The first searched word the server marked is centred. Live additions would land after a gap: they are
  // held back and the jump is offered instead; sending from here posts the form, which opens the chat's end.
  function openAtHighlight() {
    const element = thread();
    const message = element?.dataset.highlight ? byId(`message-${element.dataset.highlight}`) : null;
    if (!element || !message) return;
    message.classList.add('chat-message-highlight');
    const target = message.querySelector('.search-mark') ?? message;
    element.scrollTop += target.getBoundingClientRect().top - element.getBoundingClientRect().top - element.clientHeight / 3;
  }
  document.addEventListener('htmx:ws:before:connection', (event) => {
    if (isPartialWindow()) event.detail.connection.url += '&window=partial';
  });
  // The socket's partials that add a message (a re-rendered thread, innerHTML, is not one) are read here.
  document.addEventListener('htmx:before:swap', (event) => {
    const { ctx, tasks } = event.detail;
    const element = thread();
    if (ctx.sourceElement?.id !== 'chat-app' || !element) return;
    const partial = isPartialWindow();
    const count = tasks.length;
    for (const task of [...tasks]) {
      const addsMessage = task.target?.id === 'chat-thread' && task.swapSpec.style !== 'innerHTML' && task.fragment.firstElementChild?.tagName === 'ARTICLE';
      // A message from elsewhere (another device) while the person reads further up.
      if (addsMessage && !hearth.isNearBottom(element)) unseenMessages = true;
      if (partial && (addsMessage || !task.target)) tasks.splice(tasks.indexOf(task), 1);
    }
    if (tasks.length < count) updateJumpToLatest();
  });
  document.addEventListener('htmx:ws:before:message:outgoing', (event) => {
    if (event.detail.cancelled || event.detail.message.values?.type !== 'send' || !isPartialWindow()) return;
    hearth.cancelSocketMessage(event);
    /** @type {HTMLFormElement | null} */ (byId('chat-form'))?.submit();
  });

  // ---- Renaming: what the dialog cannot say by itself ------------------------------------------
  const showRenameError = (/** @type {string} */ text) => hearth.showLine('chat-title-error', text);
  // Opened, it holds the chat's name as it is now (the model may have named it since), selected, and no old refusal.
  document.addEventListener('toggle', (event) => {
    const input = field('chat-title-input');
    if (event.target !== byId('chat-rename') || /** @type {ToggleEvent} */ (event).newState !== 'open' || !input) return;
    input.value = byId('chat-title-text')?.textContent ?? '';
    showRenameError('');
    input.select();
  }, true);
  // Browsers without the Invoker Commands API (Safari before 26.2) get the dialogs' commands here.
  if (!('commandForElement' in HTMLButtonElement.prototype)) {
    document.addEventListener('click', (event) => {
      const button = within(event, 'button[commandfor]');
      const dialog = byId(button?.getAttribute('commandfor') ?? '');
      if (!(dialog instanceof HTMLDialogElement)) return;
      if (button?.getAttribute('command') === 'show-modal') dialog.showModal();
      else dialog.close();
    });
  }
  // No answer at all, or a proxy's error page (not swapped: hx-status:5xx).
  document.addEventListener('htmx:error', (event) => {
    if (event.target === byId('chat-title-form')) showRenameError('The server could not be reached; the title was not saved.');
  });
  document.addEventListener('htmx:response:error', (event) => {
    const status = event.detail.ctx.response.status;
    if (event.target === byId('chat-title-form') && status >= 500) showRenameError(`The title was not saved (${status}).`);
  });

  // ---- Wiring ---------------------------------------------------------------------------------
  document.addEventListener('click', (event) => {
    if (within(event, '#jump-to-latest')) return jumpToLatest();
    const example = within(event, '.chat-example');
    const input = field('chat-input');
    if (!example || !input) return;
    input.value = example.dataset.prompt ?? '';
    input.dispatchEvent(new Event('input', { bubbles: true })); // chat.js grows the box on input.
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  });

  // Socket messages, scrolling and streaming starting or ending change whether the jump shows: once
  // per frame (page-kit.js), after chat.js's hook has set <body>'s is-streaming class.
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
    openAtHighlight();
    updateJumpToLatest();
  });
})();
