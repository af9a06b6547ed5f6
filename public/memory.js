// @ts-check
// The memory page: the byte counter follows the editor as you type, and "Reset to default"
// asks before it throws the current system prompt away.
(() => {
  'use strict';
  const encoder = new TextEncoder();

  function updateByteCounter() {
    const editor = /** @type {HTMLTextAreaElement | null} */ (document.getElementById('memory-editor'));
    const counter = document.getElementById('memory-size');
    if (!editor || !counter) return;
    const max = Number(counter.dataset.maxBytes);
    // The server stores \n line ends; a browser submits \r\n, which the server normalizes.
    const bytes = encoder.encode(editor.value.replace(/\r\n/g, '\n')).length;
    counter.textContent = `${bytes} / ${max} bytes`;
    counter.classList.toggle('memory-size-over', bytes > max);
  }

  document.addEventListener('input', (event) => {
    if (event.target instanceof Element && event.target.id === 'memory-editor') updateByteCounter();
  });

  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-confirm]') : null;
    if (button && !window.confirm(button.getAttribute('data-confirm') ?? 'Are you sure?')) event.preventDefault();
  });

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', updateByteCounter);
  else updateByteCounter();
})();
