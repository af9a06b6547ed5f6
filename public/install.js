// @ts-check
// Lets Hearth open offline with a "cannot be reached" page. Browsers allow a service worker only in
// secure contexts (HTTPS, localhost); on plain LAN HTTP nothing is registered and pages work as before.
if (window.isSecureContext && 'serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error) => console.warn('Hearth: the offline page could not be set up.', error));
}
// The person's time zone, for the times and day groups the server writes (src/web/http/format-when.ts).
document.cookie = `hearth-zone=${encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone)}; path=/; max-age=31536000; samesite=lax`;
