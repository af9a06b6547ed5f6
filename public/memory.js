// @ts-check
// The memory page: while the whole file is edited, how full the memory would be follows the typing.
(() => {
  'use strict';
  const encoder = new TextEncoder();

  function updateFullness() {
    const editor = document.getElementById('memory-editor');
    const counter = document.getElementById('memory-size');
    if (!(editor instanceof HTMLTextAreaElement) || !counter) return;
    const max = Number(counter.dataset.maxBytes);
    // The server stores \n line ends; a browser submits \r\n, which the server normalizes.
    const bytes = encoder.encode(editor.value.replace(/\r\n/g, '\n')).length;
    counter.textContent = `${bytes === 0 ? 0 : Math.max(1, Math.round((bytes / max) * 100))}% full`;
    counter.classList.toggle('memory-size-over', bytes > max);
  }

  document.addEventListener('input', (event) => {
    if (event.target instanceof Element && event.target.id === 'memory-editor') updateFullness();
  });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', updateFullness);
  else updateFullness();
})();
