// @ts-check
// Message actions: copy a reply or a code block, close or send the editor of one of your messages,
// the details of version switches (those buttons send over the chat socket through hx-ws:send), and
// Retry on a notice in the thread. (The Copy bar of each code block comes from the server's Markdown renderer.)
(() => {
  'use strict';
  const { announce, afterThreadChange, within, thread } = window.hearth;
  const feedbackMs = 1600;

  /** Plain HTTP on the LAN has no navigator.clipboard: copy through a selected, off-screen textarea. */
  function copyWithSelection(/** @type {string} */ text) {
    const active = document.activeElement;
    const area = document.createElement('textarea');
    area.value = text;
    // readonly: no keyboard pops up on a phone; fixed and transparent (.copy-buffer): the page does not scroll.
    area.readOnly = true;
    area.setAttribute('aria-hidden', 'true');
    area.className = 'copy-buffer';
    document.body.append(area);
    area.select();
    area.setSelectionRange(0, text.length);
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch { /* refused: copied stays false */ }
    area.remove();
    if (active instanceof HTMLElement) active.focus({ preventScroll: true });
    return copied;
  }

  /** Copies a text, or the text a promise gives (a reply's Markdown being fetched). */
  async function copyText(/** @type {string | Promise<string>} */ textOrPromise) {
    try {
      if (navigator.clipboard && window.isSecureContext) {
        try {
          // A ClipboardItem takes the promise at once, inside the tap, as Safari requires.
          if (typeof textOrPromise !== 'string' && window.ClipboardItem) {
            const blob = Promise.resolve(textOrPromise).then((text) => new Blob([text], { type: 'text/plain' }));
            await navigator.clipboard.write([new window.ClipboardItem({ 'text/plain': blob })]);
          } else await navigator.clipboard.writeText(await textOrPromise);
          return true;
        } catch { /* refused (no permission, page not focused): the selection way may still work */ }
      }
      return copyWithSelection(await textOrPromise);
    } catch {
      return false;
    }
  }

  /** @type {WeakMap<HTMLElement, Promise<string>>} A reply's Markdown from the server, asked for as a finger touches its Copy. */
  const sources = new WeakMap();
  function replySource(/** @type {HTMLElement} */ button) {
    const source = sources.get(button) ?? fetch(button.dataset.source ?? '', { credentials: 'same-origin', headers: { accept: 'text/markdown' } }).then((response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return response.text();
    });
    source.catch(() => sources.delete(button));
    sources.set(button, source);
    return source;
  }

  /** Says "Copied" on the button for a moment (CSS shows its data-feedback), and to screen readers; or that it failed. */
  function showCopied(/** @type {HTMLElement} */ button, /** @type {boolean} */ copied) {
    button.dataset.feedback = copied ? 'Copied' : 'Copy failed';
    announce(copied ? 'Copied' : 'Copying failed: select the text and copy it by hand.');
    clearTimeout(Number(button.dataset.feedbackTimer));
    button.dataset.feedbackTimer = String(setTimeout(() => delete button.dataset.feedback, feedbackMs));
  }

  // Edit brings the editor from the server (hx-get, message-editor.eta), focused by autofocus: the
  // caret goes after the text the first time, ready to add to it. Cancel takes the editor away at once.
  document.addEventListener('focusin', (event) => {
    const editor = within(event, '.message-editor');
    if (!(editor instanceof HTMLTextAreaElement) || editor.dataset.caretPlaced) return;
    editor.dataset.caretPlaced = 'yes';
    editor.setSelectionRange(editor.value.length, editor.value.length);
  });

  function closeEditor(/** @type {Element | null} */ message) {
    message?.querySelector('.message-edit-form')?.remove();
    /** @type {HTMLElement | null | undefined} */ (message?.querySelector('.message-edit'))?.focus();
  }

  document.addEventListener('pointerdown', (event) => {
    const copyReply = within(event, '#chat-thread .message-copy');
    if (copyReply) void replySource(copyReply).catch(() => undefined);
  });

  document.addEventListener('click', (event) => {
    const copyReply = within(event, '#chat-thread .message-copy');
    const copyCode = within(event, '#chat-thread .code-copy');
    // The renderer ends every code block with a newline; a pasted snippet should not.
    const text = copyReply ? replySource(copyReply) : (copyCode?.closest('.code-block')?.querySelector('pre')?.textContent ?? '').replace(/\n$/, '');
    const copyButton = copyReply ?? copyCode;
    if (copyButton) return void copyText(text).then((copied) => showCopied(copyButton, copied));
    if (within(event, '#chat-thread .message-edit-cancel')) return closeEditor(within(event, '.chat-message'));
    // Retry on a notice (Ollama not answering, no models) sends the message still in the input again rather
    // than reloading the page, which could lose it; the old notices go (a new one comes if it fails again).
    const input = document.getElementById('chat-input');
    const form = document.getElementById('chat-form');
    if (!within(event, '#chat-thread .chat-retry') || !(input instanceof HTMLTextAreaElement) || !(form instanceof HTMLFormElement) || !input.value.trim()) return;
    event.preventDefault();
    document.querySelectorAll('#chat-thread > .chat-error-notice').forEach((notice) => notice.remove());
    form.requestSubmit();
  });

  document.addEventListener('htmx:ws:before:message:outgoing', (event) => {
    const values = event.detail.message.values;
    if (values.type !== 'version') return;
    // The first message shown here: the thread that comes back keeps the earlier pages loaded.
    const first = thread()?.querySelector('.chat-message');
    if (first) values.shownFrom = first.id.replace('message-', '');
    keepPlaceOfVersion(Number(values.messageId), String(values.direction));
  });

  // In the editor: Escape cancels; Ctrl/Cmd+Enter saves and sends (Enter alone makes a new line).
  document.addEventListener('keydown', (event) => {
    const editor = /** @type {HTMLTextAreaElement | null} */ (within(event, '.message-editor'));
    if (!editor || (event.key !== 'Escape' && !(event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.isComposing))) return;
    event.preventDefault();
    if (event.key === 'Escape') closeEditor(editor.closest('.chat-message'));
    else editor.form?.requestSubmit();
  });

  /**
   * A version switch re-renders the thread: the message before the switched one stays where it was on screen,
   * so the view does not jump. Only the swap that takes the switched message out counts.
   */
  function keepPlaceOfVersion(/** @type {number} */ messageId, /** @type {string} */ direction) {
    const switched = document.getElementById(`message-${messageId}`);
    const previous = switched?.previousElementSibling;
    const anchorId = previous?.classList.contains('chat-message') ? previous.id : '';
    const offset = previous && anchorId ? previous.getBoundingClientRect().top : 0;
    afterThreadChange((element) => {
      const again = anchorId ? document.getElementById(anchorId) : null;
      if (again) element.scrollTop += again.getBoundingClientRect().top - offset;
      // The version now shown sits after the anchor (or first): keep focus on its ‹ › and say where it is.
      const versions = (again ? again.nextElementSibling : element.querySelector('.chat-message'))?.querySelector('.message-versions');
      if (!versions) return;
      const button = (/** @type {string} */ which) => /** @type {HTMLButtonElement | null} */ (versions.querySelector(`.message-version-${which}`));
      const same = button(direction === 'earlier' ? 'earlier' : 'later');
      (same && !same.disabled ? same : button(direction === 'earlier' ? 'later' : 'earlier'))?.focus({ preventScroll: true });
      announce(versions.getAttribute('aria-label') ?? '');
    }, () => !switched?.isConnected);
  }
})();
