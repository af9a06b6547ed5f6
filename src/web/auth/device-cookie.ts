import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * OWASP's "device cookie": a browser that has logged in here before carries a signed id that
 * vouches for it at the login form, so its attempts are counted against its own budget and a
 * flood of guesses from elsewhere cannot lock it out. It grants nothing else: the password is
 * still needed, and a copied cookie buys only that one browser's budget.
 */
export const deviceCookieName = 'hearth_device';
/** A year: the owner's browsers stay trusted across long absences; each login renews it. */
export const deviceCookieMaxAgeSeconds = 365 * 24 * 3600;

// The signed value names what it is: the session cookie is signed with the same secret, and a
// signed session id must never pass for a device id (or every login-form visit would mint one).
const devicePattern = /^device:([A-Za-z0-9_-]{22})$/;

/** The id of this browser when it presents a device cookie signed by this server, else undefined. */
export function trustedDevice(request: FastifyRequest): string | undefined {
  const cookie = request.cookies[deviceCookieName];
  if (!cookie) return undefined;
  const unsigned = request.unsignCookie(cookie);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  return devicePattern.exec(unsigned.value)?.[1];
}

/**
 * After a right password: (re)sets the cookie, keeping the id the browser already had. Only the
 * login form reads it (Path=/login); httpOnly, SameSite=Strict, and Secure over HTTPS (direct or
 * behind a trusted proxy that says so).
 */
export function rememberDevice(reply: FastifyReply, deviceId = crypto.randomBytes(16).toString('base64url')): string {
  reply.setCookie(deviceCookieName, `device:${deviceId}`, {
    signed: true,
    httpOnly: true,
    sameSite: 'strict',
    secure: 'auto',
    path: '/login',
    maxAge: deviceCookieMaxAgeSeconds,
  });
  return deviceId;
}
