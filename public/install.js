// @ts-check
// Lets Hearth open offline with a "cannot be reached" page. Browsers allow a service worker only in
// secure contexts (HTTPS, localhost); on plain LAN HTTP nothing is registered and pages work as before.
if (window.isSecureContext && 'serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error) => console.warn('Hearth: the offline page could not be set up.', error));
}
// The person's time zone, for the times the server writes (src/web/http/format-when.ts). Asking Intl
// blocks a phone's page for 40-80 ms: it is asked only when the clock's offset changed (new browser,
// travel, summer time), and on the login page as the form is sent, before the first page with times.
const offset = `hearth-zone-offset=${new Date().getTimezoneOffset()}`;
const tellZone = () => {
  if (document.cookie.split('; ').includes(offset)) return;
  const zone = `hearth-zone=${encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone)}`;
  for (const cookie of [zone, offset]) document.cookie = `${cookie}; path=/; max-age=31536000; samesite=lax`;
};
const loginForm = document.getElementById('login-form');
if (loginForm) loginForm.addEventListener('submit', tellZone);
else tellZone();
