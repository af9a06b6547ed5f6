// Retry on a notice in the thread (Ollama not answering, no models): when the message the person
// typed is still in the input, Retry sends it again rather than reloading the page, which could lose it.
(() => {
  'use strict';
  document.addEventListener('click', (event) => {
    const retry = event.target instanceof Element ? event.target.closest('#chat-thread .chat-retry') : null;
    if (!retry) return;
    const input = document.getElementById('chat-input');
    const form = document.getElementById('chat-form');
    if (!(input instanceof HTMLTextAreaElement) || !(form instanceof HTMLFormElement) || input.value.trim() === '') return;
    event.preventDefault();
    // The old notices said what went wrong before this attempt; a new one comes if it fails again.
    document.querySelectorAll('#chat-thread > .chat-error-notice').forEach((notice) => notice.remove());
    form.requestSubmit();
  });
})();
