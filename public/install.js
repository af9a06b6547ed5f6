// @ts-check
// The offline page: browsers allow a service worker in secure contexts only (HTTPS, localhost), not on plain LAN HTTP.
if (window.isSecureContext && 'serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error) => console.warn('Hearth: the offline page could not be set up.', error));
}
// The person's time zone, for the times the server writes (src/web/http/format-when.ts). Intl blocks a phone 40-80 ms:
// it is asked when the clock's offset changed (new browser, travel, summer time), on the login page as it is sent.
const offset = `hearth-zone-offset=${new Date().getTimezoneOffset()}`;
const tellZone = () => {
  if (document.cookie.split('; ').includes(offset)) return;
  const zone = encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone);
  for (const cookie of [`hearth-zone=${zone}`, offset]) document.cookie = `${cookie}; path=/; max-age=31536000; samesite=lax`;
};
const loginForm = document.getElementById('login-form');
if (loginForm) loginForm.addEventListener('submit', tellZone); else tellZone();
