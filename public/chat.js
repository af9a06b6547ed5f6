// @ts-check
// Behaviour htmx does not cover: keyboard sending, clearing the input once the server has
// saved the message, following a new conversation's address, and keeping the view scrolled.
(() => {
  'use strict';
  const { hearth } = window;
  const { byId, thread, cancelSocketMessage } = hearth;
  const body = document.body;
  const input = () => /** @type {HTMLTextAreaElement | null} */ (byId('chat-input'));
  const form = () => /** @type {HTMLFormElement | null} */ (byId('chat-form'));
  let stickToBottom = true;

  function socketUrl() {
    const protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const id = /** @type {HTMLInputElement | null} */ (byId('conversation-id'))?.value ?? '';
    // The newest message shown here, so the server can send what this page missed.
    const last = [...document.querySelectorAll('#chat-thread .chat-message')].at(-1)?.id.replace('message-', '') ?? '';
    return `${protocol}//${location.host}/ws?conversation=${encodeURIComponent(id)}&after=${encodeURIComponent(last)}`;
  }

  // A turn runs from the first word to its last tool round: while a tool runs or a card waits, no
  // message streams, but Stop must stay (the server says when a turn starts and ends).
  let replyRunning = body.classList.contains('is-streaming');
  function updateStreamingState() {
    body.classList.toggle('is-streaming', replyRunning || Boolean(thread()?.querySelector('.chat-message-streaming')));
  }

  // Streamed text, socket swaps and scrolling are dealt with once per frame (page-kit.js): reading the
  // scroll position or restyling <body> for every one of a fast reply's pieces would lay it all out each time.
  let contentChanged = false;
  let structureChanged = false;
  let lastTop = 0;
  hearth.onFrame((frame) => {
    if (structureChanged) {
      structureChanged = false;
      updateStreamingState();
      if (document.querySelector('#chat-thread > .chat-error-notice:last-child')) body.classList.remove('is-sending');
    }
    if (!frame.scrolled && !contentChanged) return;
    if (frame.scrolled) {
      // Follow the reply unless the person scrolled up (text added since the last frame is not scrolling away).
      const { top, nearBottom } = frame.position();
      if (nearBottom) stickToBottom = true;
      else if (top < lastTop) stickToBottom = false;
    }
    if (contentChanged) {
      contentChanged = false;
      // New text is followed unless the person scrolled up, or the page is a window short of the newest end
      // (opened at a search match), where following would reveal the loader and pour in pages unasked.
      if (stickToBottom && !hearth.isPartialWindow()) frame.scrollToEnd();
    }
    lastTop = frame.position().top;
  });
  function scrollToEndSoon() {
    contentChanged = true;
    hearth.requestFrame();
  }

  // The open block of a reply arrives as data (`{"event":"append","target":"#id","text":"..."}`), added as
  // text, never parsed as HTML (finished blocks come as HTML, in order, after the swap that made the element).
  // A growing text is laid out again each time: a long one is kept in pieces ending at a line break.
  const streamPieceCharacters = 2048;
  function newStreamPiece(/** @type {HTMLElement} */ element, /** @type {string} */ text) {
    const piece = document.createElement('div');
    piece.className = 'chat-stream-piece';
    piece.append(document.createTextNode(text));
    element.append(piece);
  }
  function appendStreamedText(/** @type {DataFrame} */ data) {
    const element = typeof data.target === 'string' && typeof data.text === 'string' ? byId(data.target.slice(1)) : null;
    if (!element || !data.text) return;
    const text = data.text;
    const last = element.lastChild;
    // The text so far: straight in the element (as the server rendered it) or in the last piece.
    const piece = last instanceof Element && last.classList.contains('chat-stream-piece') ? last.lastChild : null;
    const tail = last instanceof Text ? last : piece instanceof Text ? piece : null;
    const lineEnd = tail && tail.length >= streamPieceCharacters ? text.indexOf('\n') : -1;
    if (!tail) newStreamPiece(element, text);
    else if (lineEnd < 0) tail.appendData(text);
    else {
      tail.appendData(text.slice(0, lineEnd + 1));
      newStreamPiece(element, text.slice(lineEnd + 1));
    }
    scrollToEndSoon();
  }

  function growInput() {
    const element = input();
    if (!element) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(element.scrollHeight, window.innerHeight * 0.4)}px`;
  }

  // The new chat's address (for a reload or a bookmark) is set when the page has a moment, within a
  // second: a first address change can take several ms, and a fast reply keeps a phone busy.
  function showAddressSoon(/** @type {string} */ url) {
    const show = () => { if (location.pathname + location.search !== url) history.replaceState(null, '', url); };
    if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(show, { timeout: 1000 });
    else setTimeout(show, 0);
  }

  // A login that ended (unused for too long, or logged out elsewhere): say so where the person
  // types, keep what they typed for after the password, and stop looking as if Send would work.
  const draftKey = () => `hearth:draft:${location.pathname}${location.search}`;
  function showSessionEnded(/** @type {string | undefined} */ message) {
    if (body.classList.contains('is-logged-out')) return;
    body.classList.add('is-logged-out');
    body.classList.remove('is-offline', 'is-sending');
    const text = input()?.value ?? '';
    if (text.trim()) sessionStorage.setItem(draftKey(), text);
    const notice = byId('session-ended');
    const words = byId('session-ended-text');
    const link = /** @type {HTMLAnchorElement | null} */ (byId('session-ended-login'));
    if (words && message) words.textContent = message;
    if (link) link.href = `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
    if (notice) notice.hidden = false;
    link?.focus();
    // The password in place: a fresh login form (its own token) from the login page, its password
    // field focused (autofocus); it posts and comes back here.
    if (link) window.htmx?.ajax('GET', link.href, { target: '#session-ended-form', select: '#login-form' }).catch(() => {});
  }
  // Back after the password: the words typed before are in the box again.
  const savedDraft = sessionStorage.getItem(draftKey());
  if (savedDraft !== null) {
    sessionStorage.removeItem(draftKey());
    const element = input();
    if (element && !element.value) element.value = savedDraft;
  }

  /** The one place data frames are read (by their event), after JSON.parse. */
  function handleDataFrame(/** @type {DataFrame} */ data) {
    if (data.event === 'session-ended') showSessionEnded(data.message);
    else if (data.event === 'reply-state' || data.event === 'reply-finished') replyRunning = data.running === true;
    // A new chat: its id, tab title, sidebar item and header come as HTML; its address is set here.
    else if (data.event === 'conversation-started') showAddressSoon(data.url ?? '');
    const element = input();
    if (data.event === 'message-accepted' && element) {
      element.value = '';
      // Empty, the box is one row, its CSS height: measuring would lay the page out as the reply starts.
      element.style.height = '';
      body.classList.remove('is-sending');
      stickToBottom = true;
      // The photos sent with it are in the thread now (photos.js empties its tray).
      document.dispatchEvent(new Event('hearth:message-accepted'));
    }
  }

  /** @returns {DataFrame | undefined} A data frame (JSON) as its object; undefined for HTML, which htmx swaps. */
  function readDataFrame(/** @type {string} */ data) {
    try {
      const frame = JSON.parse(data);
      return typeof frame === 'object' && frame !== null && typeof frame.event === 'string' ? frame : undefined;
    } catch {
      return undefined;
    }
  }

  document.addEventListener('htmx:ws:before:message:incoming', (event) => {
    const frame = readDataFrame(event.detail.message.data);
    if (!frame) return;
    if (frame.event === 'append') {
      appendStreamedText(frame);
      // Handled: htmx need not parse it again nor fire its after-events for every frame.
      return cancelSocketMessage(event);
    }
    handleDataFrame(frame);
  });

  document.addEventListener('htmx:ws:after:message:incoming', () => {
    structureChanged = true;
    scrollToEndSoon();
  });

  // Send with nothing to send says so in the box (and to a screen reader), instead of doing nothing.
  function askForText() {
    const element = input();
    if (!element) return;
    const usual = (element.dataset.usualPlaceholder ??= element.placeholder);
    element.placeholder = 'Type a message first';
    hearth.announce('Type a message first.');
    element.focus();
    element.addEventListener('input', () => { element.placeholder = usual; }, { once: true });
  }

  document.addEventListener('htmx:ws:before:message:outgoing', (event) => {
    const values = event.detail.message.values;
    if (body.classList.contains('is-logged-out')) return cancelSocketMessage(event);
    if (values.type !== 'send') return;
    // Photos alone (their ids from photos.js) are a message too.
    if ((!String(values.message ?? '').trim() && !values.attachments) || body.classList.contains('is-sending')) return cancelSocketMessage(event);
    body.classList.add('is-sending');
  });

  // Earlier messages go in above what the person is reading: keep their distance from the bottom,
  // so the view does not jump.
  document.addEventListener('htmx:before:swap', (event) => {
    const element = thread();
    if (!element || !(event.target instanceof Element) || !event.target.isConnected || !event.target.classList.contains('load-earlier')) return;
    const fromBottom = element.scrollHeight - element.scrollTop;
    hearth.afterThreadChange(() => { element.scrollTop = element.scrollHeight - fromBottom; });
  });

  // A reconnect (phone woke up, server restarted) follows the conversation this page shows now.
  document.addEventListener('htmx:ws:before:connection', (event) => {
    event.detail.connection.url = socketUrl();
  });
  // Until the socket has opened once, the form posts to /send like a plain web form, so a Send pressed
  // early is never held by a socket that may never open; after that, htmx queues it while reconnecting.
  let connected = false;
  document.addEventListener('htmx:ws:after:connection', () => { connected = true; body.classList.remove('is-offline'); });
  // A socket that closes may have lost its login while the phone slept: ask the server (which answers
  // without a login), at most every 15 s, as htmx keeps retrying while the server is away.
  let sessionAskedAt = -Infinity;
  document.addEventListener('htmx:ws:close', () => {
    if (body.classList.contains('is-logged-out')) return;
    body.classList.add('is-offline');
    if (performance.now() - sessionAskedAt < 15_000) return;
    sessionAskedAt = performance.now();
    fetch('/session', { credentials: 'same-origin', cache: 'no-store' })
      .then((response) => (response.ok ? response.json() : undefined))
      .then((answer) => { if (answer && answer.loggedIn === false) showSessionEnded(undefined); })
      .catch(() => { /* the server is away: "Reconnecting…" is the truth */ });
  });

  document.addEventListener('submit', (event) => {
    if (event.target !== form()) return;
    const empty = !String(input()?.value ?? '').trim() && !/** @type {HTMLInputElement | null} */ (byId('photo-ids'))?.value;
    if (empty) {
      event.preventDefault();
      askForText();
    }
    // Connected: htmx sends over the socket. Not yet: keep htmx from swallowing the submit.
    if (empty || !connected) event.stopImmediatePropagation();
  }, true);

  document.addEventListener('keydown', (event) => {
    if (event.target !== input() || event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    // On touch keyboards Enter makes a new line; the Send button sends.
    if (window.matchMedia('(pointer: coarse)').matches) return;
    event.preventDefault();
    form()?.requestSubmit();
  });
  document.addEventListener('input', (event) => {
    if (event.target === input()) growInput();
  });
  // Send keeps the focus in the box (a phone's keyboard stays open); when the keyboard opens, the newest message stays in view.
  document.addEventListener('mousedown', (event) => { if (hearth.within(event, '#chat-send')) event.preventDefault(); });
  window.addEventListener('resize', scrollToEndSoon);

  document.addEventListener('DOMContentLoaded', () => {
    const element = thread();
    updateStreamingState();
    // Opened at a search match: chat-header.js scrolls to it, and the view stays there.
    if (element?.dataset.highlight) stickToBottom = false;
    else if (element) element.scrollTop = element.scrollHeight;
    growInput();
  });
})();
