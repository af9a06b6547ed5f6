// @ts-check
// Hearth's service worker: an offline page instead of the browser's error when a page cannot be loaded. Chats are
// private (no-store): only the offline page and its files are cached; every other request goes to the network untouched.
const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const cacheVersion = 'v1';
const cachePrefix = 'hearth-offline-';
const cacheName = cachePrefix + cacheVersion;
const offlinePage = '/static/offline.html';
const offlineFiles = [offlinePage, '/static/offline.css', '/static/icon.svg'];

worker.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(cacheName)
      // Without cookies: they are public, and an answer with a renewed session cookie could land after a login and undo it.
      .then((cache) => cache.addAll(offlineFiles.map((file) => new Request(file, { credentials: 'omit' }))))
      .then(() => worker.skipWaiting()),
  );
});

// Older versions' caches go; caches that are not ours (none today) are left alone.
worker.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names
        .filter((name) => name.startsWith(cachePrefix) && name !== cacheName)
        .map((name) => caches.delete(name))))
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  if (request.mode === 'navigate') {
    // Network first, always: the offline page only when the server cannot be reached at all.
    event.respondWith(fetch(request).catch(() => offlineResponse()));
    return;
  }
  const url = new URL(request.url);
  if (url.origin === worker.location.origin && offlineFiles.includes(url.pathname)) {
    event.respondWith(fetch(request).catch(() => caches.match(url.pathname, { cacheName })
      .then((cached) => cached ?? Response.error())));
  }
});

async function offlineResponse() {
  const cached = await caches.match(offlinePage, { cacheName });
  return cached ?? new Response('Hearth cannot be reached. Is the computer on and on the same Wi-Fi?', {
    status: 503,
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
}
