/*
 * A local stand-in for the parts of Google that Hearth uses, speaking their wire formats, so the
 * real google-auth-library and googleapis code runs against it (through OAuth2Client's
 * `endpoints` and googleapis' `rootUrl`):
 *   OAuth   GET  /o/oauth2/v2/auth   (redirects to the loopback with code + state)
 *           POST /token              (authorization_code with PKCE S256 check; refresh_token;
 *                                      invalid_grant for revoked or unknown grants)
 *           POST /revoke?token=...
 *   Gmail   GET  /gmail/v1/users/me/profile
 *           GET  /gmail/v1/users/me/messages?q=...     (a small subset of the query syntax)
 *           GET  /gmail/v1/users/me/messages/{id}?format=full|metadata
 *           POST /gmail/v1/users/me/drafts             (the raw MIME is kept for tests)
 *           POST /gmail/v1/users/me/messages/send       (RFC 2822 parsed and kept in `sent`)
 *           GET  /gmail/v1/users/me/labels, POST …/messages/{id}/modify|trash|untrash
 *   Calendar GET /calendar/v3/users/me/calendarList    (each calendar with its own time zone)
 *           GET /calendar/v3/calendars/{id}/events (q=), POST …/events (insert), POST …/events/quickAdd,
 *           GET and DELETE …/events/{eventId} (a series' id deletes every occurrence)
 *           PATCH …/events/{eventId} (the fields given replace those stored, null clears one; a
 *                                      series' own event moves every occurrence with it but
 *                                      those moved alone)
 *           (a series' own event, with `recurrence`, is stored beside its occurrences; lists,
 *           asked for single events as Hearth asks, leave it out)
 *           POST /calendar/v3/freeBusy
 * Every API request is checked against the scopes its access token was granted: a missing one
 * is Google's 403 insufficientPermissions.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseClock, parseDay, zonedTime, zonedIso, dayOf, addDays, formatClock } from '../../src/providers/google/calendar-days.js';

export interface StandinPart {
  mimeType: string;
  /** Text for text parts, bytes for anything else. */
  content?: string | Buffer;
  charset?: string;
  filename?: string;
  headers?: Record<string, string>;
  parts?: StandinPart[];
}

export interface StandinMessage {
  id: string;
  threadId?: string;
  from: string;
  to: string;
  subject: string;
  /** ISO date. */
  date: string;
  messageId?: string;
  references?: string;
  replyTo?: string;
  cc?: string;
  labelIds?: string[];
  /** A MIME tree; by default one text/plain part holding `text`. */
  payload?: StandinPart;
  text?: string;
}

export interface StandinEvent {
  id?: string;
  /** The calendar it is in; by default the primary one. */
  calendarId?: string;
  /** An occurrence of a repeating event: the series' id (its own id is "<series>_<date>"). */
  recurringEventId?: string;
  summary: string;
  location?: string;
  description?: string;
  attendees?: Array<{ email: string; responseStatus?: string }>;
  reminders?: { useDefault: boolean; overrides?: Array<{ method: string; minutes: number }> };
  recurrence?: string[];
  start: { dateTime?: string; date?: string; timeZone?: string };
  end: { dateTime?: string; date?: string; timeZone?: string };
  /** "transparent" events do not make the person busy. */
  transparency?: 'opaque' | 'transparent';
  status?: 'confirmed' | 'cancelled';
}

export interface StandinCalendar {
  id: string;
  summary: string;
  timeZone: string;
  primary?: boolean;
  accessRole: 'owner' | 'writer' | 'reader' | 'freeBusyReader';
}

export interface StandinAccount {
  email: string;
  messages: StandinMessage[];
  events: StandinEvent[];
  /** The primary calendar (id = the address) first. */
  calendars: StandinCalendar[];
  /** The person's own labels (the system ones always exist). */
  labels: Array<{ id: string; name: string }>;
}

/** A message sent through messages.send or drafts.send, as Gmail received it. */
export type RecordedSend = RecordedDraft;

/** An events.insert or quickAdd, with how Google was asked to tell the guests. */
export interface RecordedInsert {
  account: string;
  calendarId: string;
  sendUpdates: string | undefined;
  event: StandinEvent;
}

/** An events.patch: the body as sent, and how Google was asked to tell the guests. */
export interface RecordedPatch {
  account: string;
  calendarId: string;
  eventId: string;
  sendUpdates: string | undefined;
  body: Record<string, unknown>;
}

export interface RecordedDraft {
  /** Gmail's draft id ("r-draft-1"); for a sent message, the message id. */
  id: string;
  account: string;
  threadId: string | undefined;
  raw: string;
  /** The decoded MIME text. */
  mime: string;
  /** Header names lower-cased, values unfolded. */
  headers: Record<string, string>;
  /** The body with its transfer encoding undone. */
  body: string;
}

export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  expiry_date: number;
  scope: string;
  token_type: 'Bearer';
}

export const standinClient = { clientId: 'hearth-test.apps.googleusercontent.com', clientSecret: 'stand-in-secret' };
const scope = (name: string) => `https://www.googleapis.com/auth/${name}`;
/** What Hearth had before it could act: reading, drafts, reading the calendar. */
export const readOnlyScopes = [scope('gmail.readonly'), scope('gmail.compose'), scope('calendar.readonly')].join(' ');
export const allScopes = [readOnlyScopes, scope('gmail.modify'), scope('calendar.events')].join(' ');

/** Which scopes allow a request (any one of them), as Google's API reference lists them. */
function scopesFor(method: string, path: string): string[] {
  const gmailRead = [scope('gmail.readonly'), scope('gmail.modify'), scope('mail.google.com/')];
  if (path.startsWith('/gmail/')) {
    if (method === 'POST' && /\/drafts$/.test(path)) return [scope('gmail.compose'), scope('gmail.modify')];
    if (method === 'POST' && /\/(messages|drafts)\/send$/.test(path)) return [scope('gmail.send'), scope('gmail.compose'), scope('gmail.modify')];
    if (method === 'GET' && /\/labels$/.test(path)) return [scope('gmail.labels'), ...gmailRead];
    if (method !== 'GET') return [scope('gmail.modify')];
    return gmailRead;
  }
  if (/calendarList/.test(path)) return [scope('calendar.readonly'), scope('calendar')];
  if (method === 'GET' || /\/freeBusy$/.test(path)) return [scope('calendar.readonly'), scope('calendar.events.readonly'), scope('calendar.events'), scope('calendar')];
  return [scope('calendar.events'), scope('calendar')];
}

export const textPart = (content: string, mimeType = 'text/plain', charset = 'utf-8'): StandinPart => ({ mimeType, content, charset });
export const multipart = (subtype: string, ...parts: StandinPart[]): StandinPart => ({ mimeType: `multipart/${subtype}`, parts });
export const attachmentPart = (filename: string, mimeType: string, content: Buffer | string): StandinPart => ({ mimeType, filename, content });

/** The `credentials.json` a person downloads for a Desktop-app client, pointing at the stand-in. */
export function desktopClientFile(url: string): string {
  return JSON.stringify({
    installed: {
      client_id: standinClient.clientId,
      client_secret: standinClient.clientSecret,
      auth_uri: `${url}/o/oauth2/v2/auth`,
      token_uri: `${url}/token`,
      redirect_uris: ['http://localhost'],
    },
  });
}

const base64Url = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const sha256Url = (text: string) => crypto.createHash('sha256').update(text).digest('base64url');
const token = (prefix: string) => `${prefix}-${crypto.randomBytes(12).toString('hex')}`;

function apiError(response: http.ServerResponse, code: number, message: string, reason: string, status: string): void {
  sendJson(response, code, { error: { code, message, errors: [{ message, domain: 'global', reason }], status } });
}

function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Undoes the draft's MIME: headers unfolded and a base64 or quoted-printable body decoded. */
export function parseMime(mime: string): { headers: Record<string, string>; body: string } {
  const split = mime.indexOf('\r\n\r\n');
  const head = split >= 0 ? mime.slice(0, split) : mime;
  const rawBody = split >= 0 ? mime.slice(split + 4) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const index = line.indexOf(':');
    if (index > 0) headers[line.slice(0, index).toLowerCase()] = line.slice(index + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  const body = encoding === 'base64' ? Buffer.from(rawBody.replace(/\s+/g, ''), 'base64').toString('utf8') : rawBody;
  return { headers, body: body.replace(/\r\n/g, '\n') };
}

/** RFC 2047 encoded-words back to text. */
export function decodeHeaderWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([bq])\?([^?]*)\?=/gi, (_match, _charset: string, encoding: string, text: string) =>
      encoding.toLowerCase() === 'b' ? Buffer.from(text, 'base64').toString('utf8') : text.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_hex, code: string) => String.fromCharCode(parseInt(code, 16))),
    );
}

export type GoogleStandin = Awaited<ReturnType<typeof startGoogleStandin>>;

export async function startGoogleStandin() {
  const accounts = new Map<string, StandinAccount>();
  const codes = new Map<string, { email: string; challenge: string; redirectUri: string; scope: string }>();
  const refreshTokens = new Map<string, { email: string; revoked: boolean; scope: string }>();
  const accessTokens = new Map<string, { email: string; expiresAt: number; refreshToken: string; scope: string }>();
  const drafts: RecordedDraft[] = [];
  const sent: RecordedSend[] = [];
  const inserted: RecordedInsert[] = [];
  const deleted: Array<{ account: string; calendarId: string; eventId: string; sendUpdates: string | undefined }> = [];
  const patched: RecordedPatch[] = [];
  const movedAlone = new WeakSet<StandinEvent>();
  const authorizations: Array<Record<string, string>> = [];
  const tokenRequests: Array<Record<string, string>> = [];
  const apiRequests: Array<{ method: string; path: string; account: string | undefined }> = [];
  const gmailQueries: string[] = [];
  const state = {
    /** Who "signs in" at the consent screen; default the login_hint or the first account. */
    nextLogin: undefined as string | undefined,
    /** The person presses "Cancel" on the consent screen. */
    denyConsent: false,
    /** Every API request fails this way while set (quota tests). */
    apiFailure: undefined as { status: number; reason: string; message: string } | undefined,
    /** "Today" for quick add; by default the real time. */
    now: undefined as Date | undefined,
    /**
     * While set, each API request waits for the promise it returns before it is answered
     * (slow-Google tests); `hungUp` settles when the caller gives up on it (an aborted call).
     */
    hold: undefined as ((path: string, hungUp: Promise<void>) => Promise<void>) | undefined,
  };
  let draftCount = 0;
  let sentCount = 0;

  function addAccount(email: string, content: { messages?: StandinMessage[]; events?: StandinEvent[]; calendars?: StandinCalendar[]; labels?: Array<{ id: string; name: string }> } = {}): StandinAccount {
    const primary: StandinCalendar = { id: email, summary: email, timeZone: 'Europe/Paris', primary: true, accessRole: 'owner' };
    const account = { email, messages: content.messages ?? [], events: content.events ?? [], calendars: content.calendars ?? [primary], labels: content.labels ?? [] };
    accounts.set(email, account);
    return account;
  }

  /** Tokens as the CLI saves them; `scope` narrower than all of Hearth's for an account authorized earlier. */
  function issueTokens(email: string, options: { expiresInSeconds?: number; scope?: string } = {}): IssuedTokens {
    const refreshToken = token('refresh');
    const granted = options.scope ?? allScopes;
    refreshTokens.set(refreshToken, { email, revoked: false, scope: granted });
    return { ...newAccessToken(email, refreshToken, options.expiresInSeconds ?? 3599, granted), refresh_token: refreshToken };
  }

  function newAccessToken(email: string, refreshToken: string, expiresInSeconds: number, granted: string) {
    const accessToken = token('access');
    const expiresAt = Date.now() + expiresInSeconds * 1000;
    accessTokens.set(accessToken, { email, expiresAt, refreshToken, scope: granted });
    return { access_token: accessToken, expiry_date: expiresAt, scope: granted, token_type: 'Bearer' as const };
  }

  /** The person revokes Hearth's access in their Google account settings. */
  function revokeGrant(email: string): void {
    for (const grant of refreshTokens.values()) if (grant.email === email) grant.revoked = true;
  }

  function partResource(part: StandinPart, partId: string, extraHeaders: Array<{ name: string; value: string }>): Record<string, unknown> {
    const contentType = part.mimeType.startsWith('multipart/')
      ? `${part.mimeType}; boundary="b${partId.replace(/\./g, '_') || 'root'}"`
      : part.mimeType.startsWith('text/')
        ? `${part.mimeType}; charset="${part.charset ?? 'utf-8'}"`
        : part.mimeType;
    const headers = [...extraHeaders, { name: 'Content-Type', value: contentType }, ...Object.entries(part.headers ?? {}).map(([name, value]) => ({ name, value }))];
    if (part.filename) headers.push({ name: 'Content-Disposition', value: `attachment; filename="${part.filename}"` });
    if (part.parts) {
      return {
        partId, mimeType: part.mimeType, filename: '', headers, body: { size: 0 },
        parts: part.parts.map((child, index) => partResource(child, partId ? `${partId}.${index}` : String(index), [])),
      };
    }
    const bytes = typeof part.content === 'string' ? Buffer.from(part.content, /^(iso-8859-1|latin1|windows-1252)$/i.test(part.charset ?? '') ? 'latin1' : 'utf8') : (part.content ?? Buffer.alloc(0));
    // Gmail gives attachments by id only; text parts inline.
    const body = part.filename ? { attachmentId: `att-${partId}`, size: bytes.length } : { size: bytes.length, data: base64Url(bytes) };
    return { partId, mimeType: part.mimeType, filename: part.filename ?? '', headers, body };
  }

  function messageHeaders(message: StandinMessage) {
    return [
      { name: 'From', value: message.from },
      { name: 'To', value: message.to },
      ...(message.cc ? [{ name: 'Cc', value: message.cc }] : []),
      ...(message.replyTo ? [{ name: 'Reply-To', value: message.replyTo }] : []),
      { name: 'Subject', value: message.subject },
      { name: 'Date', value: new Date(message.date).toUTCString() },
      { name: 'Message-ID', value: message.messageId ?? `<${message.id}@mail.example>` },
      ...(message.references ? [{ name: 'References', value: message.references }] : []),
      { name: 'MIME-Version', value: '1.0' },
    ];
  }

  function messageResource(message: StandinMessage, format: string, metadataHeaders: string[]) {
    const payload = partResource(message.payload ?? textPart(message.text ?? ''), '', messageHeaders(message));
    const common = {
      id: message.id,
      threadId: message.threadId ?? message.id,
      labelIds: message.labelIds ?? ['INBOX'],
      snippet: (message.text ?? message.subject).slice(0, 100),
      internalDate: String(Date.parse(message.date)),
      historyId: '1000',
      sizeEstimate: 1000,
    };
    if (format === 'metadata') {
      const wanted = metadataHeaders.map((name) => name.toLowerCase());
      const headers = (payload.headers as Array<{ name: string; value: string }>).filter((header) => wanted.length === 0 || wanted.includes(header.name.toLowerCase()));
      return { ...common, payload: { partId: '', mimeType: payload.mimeType, filename: '', headers, body: { size: 0 } } };
    }
    return { ...common, payload };
  }

  function plainTextOf(part: StandinPart): string {
    if (part.parts) return part.parts.map(plainTextOf).join(' ');
    return typeof part.content === 'string' ? part.content : '';
  }

  function matches(message: StandinMessage, query: string): boolean {
    const terms = [...query.matchAll(/(\w+:)?("[^"]*"|\S+)/g)].map((match) => ({ operator: match[1]?.slice(0, -1).toLowerCase(), value: match[2]!.replace(/^"|"$/g, '').toLowerCase() }));
    const haystack = `${message.from} ${message.to} ${message.subject} ${message.text ?? ''} ${message.payload ? plainTextOf(message.payload) : ''}`.toLowerCase();
    return terms.every(({ operator, value }) => {
      switch (operator) {
        case 'from': return message.from.toLowerCase().includes(value);
        case 'to': return message.to.toLowerCase().includes(value);
        case 'subject': return message.subject.toLowerCase().includes(value);
        case 'is': return value === 'unread' ? (message.labelIds ?? []).includes('UNREAD') : true;
        case undefined: return haystack.includes(value);
        default: return true; // newer_than:, in:, label:... are accepted and ignored
      }
    });
  }

  function authorizedAccount(request: http.IncomingMessage, response: http.ServerResponse, path: string): StandinAccount | undefined {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const grant = bearer ? accessTokens.get(bearer) : undefined;
    if (!grant || grant.expiresAt < Date.now() || refreshTokens.get(grant.refreshToken)?.revoked) {
      apiError(response, 401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', 'authError', 'UNAUTHENTICATED');
      return undefined;
    }
    const granted = new Set(grant.scope.split(/\s+/));
    if (!scopesFor(request.method ?? 'GET', path).some((needed) => granted.has(needed))) {
      apiError(response, 403, 'Request had insufficient authentication scopes.', 'insufficientPermissions', 'PERMISSION_DENIED');
      return undefined;
    }
    return accounts.get(grant.email);
  }

  async function handleToken(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const form = Object.fromEntries(new URLSearchParams(await readBody(request)));
    tokenRequests.push(form);
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    if ((form.client_id ?? basicId) !== standinClient.clientId || (form.client_secret ?? basicSecret) !== standinClient.clientSecret) {
      return sendJson(response, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
    }
    const invalidGrant = (description: string) => sendJson(response, 400, { error: 'invalid_grant', error_description: description });
    if (form.grant_type === 'authorization_code') {
      const grant = codes.get(form.code ?? '');
      codes.delete(form.code ?? ''); // one use only
      if (!grant) return invalidGrant('Malformed auth code.');
      if (grant.redirectUri !== form.redirect_uri) return sendJson(response, 400, { error: 'redirect_uri_mismatch', error_description: 'Bad Request' });
      if (!form.code_verifier || sha256Url(form.code_verifier) !== grant.challenge) return invalidGrant('Invalid code verifier.');
      const issued = issueTokens(grant.email, { scope: grant.scope });
      return sendJson(response, 200, { access_token: issued.access_token, expires_in: 3599, refresh_token: issued.refresh_token, scope: grant.scope, token_type: 'Bearer' });
    }
    if (form.grant_type === 'refresh_token') {
      const grant = refreshTokens.get(form.refresh_token ?? '');
      if (!grant || grant.revoked) return invalidGrant('Token has been expired or revoked.');
      const fresh = newAccessToken(grant.email, form.refresh_token!, 3599, grant.scope);
      return sendJson(response, 200, { access_token: fresh.access_token, expires_in: 3599, scope: grant.scope, token_type: 'Bearer' });
    }
    sendJson(response, 400, { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${form.grant_type}` });
  }

  function handleAuthorize(url: URL, response: http.ServerResponse): void {
    const query = Object.fromEntries(url.searchParams);
    authorizations.push(query);
    const redirect = new URL(query.redirect_uri ?? 'http://invalid/');
    if (query.client_id !== standinClient.clientId || redirect.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(redirect.hostname)) {
      response.writeHead(400, { 'content-type': 'text/plain' });
      return void response.end('Error 400: invalid_request (client or redirect_uri)');
    }
    if (query.code_challenge_method !== 'S256' || !query.code_challenge) {
      response.writeHead(400, { 'content-type': 'text/plain' });
      return void response.end('Error 400: invalid_request (this stand-in requires PKCE S256)');
    }
    if (state.denyConsent) {
      redirect.searchParams.set('error', 'access_denied');
    } else {
      const email = state.nextLogin ?? query.login_hint ?? [...accounts.keys()][0];
      if (!email || !accounts.has(email)) {
        response.writeHead(400, { 'content-type': 'text/plain' });
        return void response.end('No such test account');
      }
      const code = token('code');
      codes.set(code, { email, challenge: query.code_challenge, redirectUri: query.redirect_uri!, scope: query.scope ?? '' });
      redirect.searchParams.set('code', code);
      redirect.searchParams.set('scope', query.scope ?? '');
    }
    if (query.state !== undefined) redirect.searchParams.set('state', query.state);
    response.writeHead(302, { location: redirect.href });
    response.end();
  }

  async function handleGmail(request: http.IncomingMessage, response: http.ServerResponse, url: URL, account: StandinAccount, rest: string): Promise<void> {
    if (request.method === 'GET' && rest === 'profile') {
      return sendJson(response, 200, { emailAddress: account.email, messagesTotal: account.messages.length, threadsTotal: account.messages.length, historyId: '1000' });
    }
    if (request.method === 'GET' && rest === 'messages') {
      const query = url.searchParams.get('q') ?? '';
      gmailQueries.push(query);
      const max = Number(url.searchParams.get('maxResults') ?? 100);
      const found = account.messages.filter((message) => matches(message, query)).sort((a, b) => Date.parse(b.date) - Date.parse(a.date));
      const page = found.slice(0, max).map((message) => ({ id: message.id, threadId: message.threadId ?? message.id }));
      // Like Gmail: no "messages" key at all when nothing matches.
      return sendJson(response, 200, { ...(page.length ? { messages: page } : {}), ...(found.length > max ? { nextPageToken: 'next' } : {}), resultSizeEstimate: found.length });
    }
    const messageMatch = /^messages\/([^/]+)$/.exec(rest);
    if (request.method === 'GET' && messageMatch) {
      const message = account.messages.find((candidate) => candidate.id === decodeURIComponent(messageMatch[1]!));
      if (!message) return apiError(response, 404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND');
      return sendJson(response, 200, messageResource(message, url.searchParams.get('format') ?? 'full', url.searchParams.getAll('metadataHeaders')));
    }
    if (request.method === 'GET' && rest === 'labels') {
      const system = ['INBOX', 'SENT', 'TRASH', 'SPAM', 'DRAFT', 'UNREAD', 'STARRED', 'IMPORTANT'].map((id) => ({ id, name: id, type: 'system' }));
      return sendJson(response, 200, { labels: [...system, ...account.labels.map((label) => ({ ...label, type: 'user' }))] });
    }
    const change = /^messages\/([^/]+)\/(modify|trash|untrash)$/.exec(rest);
    if (request.method === 'POST' && change) {
      const message = account.messages.find((candidate) => candidate.id === decodeURIComponent(change[1]!));
      if (!message) return apiError(response, 404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND');
      const labels = new Set(message.labelIds ?? ['INBOX']);
      if (change[2] === 'trash') labels.add('TRASH');
      else if (change[2] === 'untrash') labels.delete('TRASH');
      else {
        const body = JSON.parse(await readBody(request)) as { addLabelIds?: string[]; removeLabelIds?: string[] };
        const known = new Set(['INBOX', 'UNREAD', 'STARRED', 'IMPORTANT', 'SPAM', 'TRASH', ...account.labels.map((label) => label.id)]);
        const unknown = [...(body.addLabelIds ?? []), ...(body.removeLabelIds ?? [])].find((id) => !known.has(id));
        if (unknown) return apiError(response, 400, `Invalid label: ${unknown}`, 'invalidArgument', 'INVALID_ARGUMENT');
        for (const id of body.addLabelIds ?? []) labels.add(id);
        for (const id of body.removeLabelIds ?? []) labels.delete(id);
      }
      message.labelIds = [...labels];
      return sendJson(response, 200, { id: message.id, threadId: message.threadId ?? message.id, labelIds: message.labelIds });
    }
    if (request.method === 'POST' && rest === 'messages/send') {
      const body = JSON.parse(await readBody(request)) as { raw?: string; threadId?: string };
      const raw = body.raw ?? '';
      const mime = Buffer.from(raw, 'base64url').toString('utf8');
      const parsed = parseMime(mime);
      if (!parsed.headers.to && !parsed.headers.cc) return apiError(response, 400, 'Invalid To header', 'invalidArgument', 'INVALID_ARGUMENT');
      // Gmail keeps a sent message in the thread asked for only when it answers a message of that
      // thread (In-Reply-To or References) and keeps its subject; otherwise it starts a new thread.
      const thread = account.messages.filter((message) => (message.threadId ?? message.id) === body.threadId);
      const ids = `${parsed.headers['in-reply-to'] ?? ''} ${parsed.headers.references ?? ''}`;
      const bareSubject = (subject: string) => decodeHeaderWords(subject).replace(/^(re|fwd?)\s*:\s*/gi, '').trim().toLowerCase();
      const threaded = thread.some((message) => ids.includes(message.messageId ?? `<${message.id}@mail.example>`) && bareSubject(message.subject) === bareSubject(parsed.headers.subject ?? ''));
      sentCount += 1;
      const id = `sent${String(sentCount).padStart(8, '0')}`;
      const threadId = threaded ? body.threadId! : `thread-sent-${sentCount}`;
      sent.push({ id, account: account.email, threadId, raw, mime, headers: parsed.headers, body: parsed.body });
      account.messages.push({
        id, threadId, from: account.email, to: decodeHeaderWords(parsed.headers.to ?? ''), cc: parsed.headers.cc, subject: decodeHeaderWords(parsed.headers.subject ?? ''),
        date: new Date().toISOString(), messageId: `<${id}@mail.example>`, labelIds: ['SENT'], text: parsed.body,
      });
      return sendJson(response, 200, { id, threadId, labelIds: ['SENT'] });
    }
    const draftPath = /^drafts\/([^/]+)$/.exec(rest);
    if (request.method === 'GET' && draftPath) {
      const draft = drafts.find((candidate) => candidate.id === decodeURIComponent(draftPath[1]!) && candidate.account === account.email);
      if (!draft) return apiError(response, 404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND');
      const headers = Object.entries(draft.headers).map(([name, value]) => ({ name: name.replace(/(^|-)([a-z])/g, (_all, dash: string, letter: string) => dash + letter.toUpperCase()), value: decodeHeaderWords(value) }));
      const message = { id: `draft-message-${draft.id.slice('r-draft-'.length)}`, threadId: draft.threadId, labelIds: ['DRAFT'], payload: { partId: '', mimeType: 'text/plain', filename: '', headers, body: { size: draft.body.length, data: base64Url(draft.body) } } };
      return sendJson(response, 200, { id: draft.id, message });
    }
    if (request.method === 'POST' && rest === 'drafts/send') {
      const body = JSON.parse(await readBody(request)) as { id?: string };
      const index = drafts.findIndex((candidate) => candidate.id === body.id && candidate.account === account.email);
      if (index < 0) return apiError(response, 404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND');
      const [draft] = drafts.splice(index, 1);
      sentCount += 1;
      const id = `sent${String(sentCount).padStart(8, '0')}`;
      const threadId = draft!.threadId ?? `thread-sent-${sentCount}`;
      sent.push({ ...draft!, id, threadId });
      return sendJson(response, 200, { id, threadId, labelIds: ['SENT'] });
    }
    if (request.method === 'POST' && rest === 'drafts') {
      const body = JSON.parse(await readBody(request)) as { message?: { raw?: string; threadId?: string } };
      const raw = body.message?.raw ?? '';
      const mime = Buffer.from(raw, 'base64url').toString('utf8');
      const parsed = parseMime(mime);
      draftCount += 1;
      const threadId = body.message?.threadId;
      drafts.push({ id: `r-draft-${draftCount}`, account: account.email, threadId, raw, mime, headers: parsed.headers, body: parsed.body });
      return sendJson(response, 200, { id: `r-draft-${draftCount}`, message: { id: `draft-message-${draftCount}`, threadId: threadId ?? `thread-${draftCount}`, labelIds: ['DRAFT'] } });
    }
    apiError(response, 404, 'Not Found', 'notFound', 'NOT_FOUND');
  }

  const overlaps = (event: StandinEvent, start: number, end: number) => {
    const eventStart = Date.parse(event.start.dateTime ? instantOf(event.start)! : `${event.start.date}T00:00:00Z`);
    const eventEnd = Date.parse(event.end.dateTime ? instantOf(event.end)! : `${event.end.date}T00:00:00Z`);
    return eventStart < end && eventEnd > start;
  };

  /** The calendar a path names ("primary" or an id), or undefined after answering 404. */
  function calendarNamed(account: StandinAccount, id: string, response: http.ServerResponse): StandinCalendar | undefined {
    const wanted = decodeURIComponent(id);
    const found = account.calendars.find((calendar) => (wanted === 'primary' ? calendar.primary : calendar.id === wanted));
    if (!found) apiError(response, 404, 'Not Found', 'notFound', 'NOT_FOUND');
    return found;
  }

  const inCalendar = (account: StandinAccount, calendar: StandinCalendar) => (event: StandinEvent) =>
    (event.calendarId ?? account.calendars.find((candidate) => candidate.primary)?.id) === calendar.id;

  /** Google reads a dateTime's own offset; one without needs the timeZone beside it. */
  function instantOf(time: { dateTime?: string; timeZone?: string }): string | undefined {
    const written = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::\d{2})?(Z|[+-]\d{2}:\d{2})?$/.exec(time.dateTime ?? '');
    if (!written) return undefined;
    if (written[4]) return new Date(time.dateTime!).toISOString();
    if (!time.timeZone) return undefined;
    const day = parseDay(written[1]!, { year: 2000, month: 1, day: 1 })!;
    return zonedTime(day, Number(written[2]), Number(written[3]), time.timeZone).toISOString();
  }

  /** "dentist Tuesday 4pm": the little of Google's quick-add grammar the tests use (a weekday or "tomorrow", a time). */
  function quickAddEvent(text: string, calendar: StandinCalendar): StandinEvent {
    const zone = calendar.timeZone;
    const today = dayOf(new Date(state.now ?? Date.now()), zone);
    let day = today;
    let minutes: number | undefined;
    const words = text.split(/\s+/).filter((word) => {
      const lower = word.toLowerCase();
      const clock = /^(?:at)$/.test(lower) ? undefined : parseClock(lower.replace(/^(\d{1,2})$/, '$1:00'));
      if (/\d/.test(lower) && clock !== undefined && minutes === undefined) {
        minutes = clock;
        return false;
      }
      if (lower === 'at' || lower === 'on') return false;
      const named = /^[a-z]+$/.test(lower) && lower.length >= 3 ? parseDay(lower, today) : undefined;
      if (named && lower !== 'to') {
        day = named;
        return false;
      }
      return true;
    });
    const summary = words.join(' ');
    if (minutes === undefined) return { summary, start: { date: isoDate(day) }, end: { date: isoDate(addDays(day, 1)) } };
    const start = zonedTime(day, Math.floor(minutes / 60), minutes % 60, zone);
    return { summary, start: { dateTime: start.toISOString(), timeZone: zone }, end: { dateTime: new Date(start.getTime() + 3_600_000).toISOString(), timeZone: zone } };
  }

  const isoDate = (day: { year: number; month: number; day: number }) => `${day.year}-${String(day.month).padStart(2, '0')}-${String(day.day).padStart(2, '0')}`;

  /** Patch semantics: a field given replaces the stored one, null clears it; start and end merge field by field. */
  function patchEvent(event: StandinEvent, body: Record<string, unknown>): StandinEvent {
    const result: Record<string, unknown> = structuredClone(event) as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(body)) {
      if (key === 'id') continue;
      if (value === null) delete result[key];
      else if ((key === 'start' || key === 'end') && typeof value === 'object') {
        const merged: Record<string, unknown> = { ...(result[key] as Record<string, unknown>) };
        for (const [field, fieldValue] of Object.entries(value as Record<string, unknown>)) {
          if (fieldValue === null) delete merged[field];
          else merged[field] = fieldValue;
        }
        result[key] = merged;
      } else result[key] = value;
    }
    return result as unknown as StandinEvent;
  }

  /** The stored event becomes `changed`, in place (tests hold it). */
  function replaceEvent(event: StandinEvent, changed: StandinEvent): void {
    Object.keys(event).forEach((key) => delete (event as unknown as Record<string, unknown>)[key]);
    Object.assign(event, changed);
  }

  /** What Google answers about an event's times that cannot be saved, if anything. */
  function timesProblem(event: StandinEvent): string | undefined {
    for (const time of [event.start, event.end]) {
      if (time.date && time.dateTime) return 'Invalid start or end: a date and a dateTime.';
      if (!time.date && instantOf(time) === undefined) return 'Missing time zone definition for start time.';
    }
    if (Boolean(event.start.date) !== Boolean(event.end.date)) return 'Invalid start or end: one is a date, the other a dateTime.';
    const start = event.start.date ?? instantOf(event.start)!;
    const end = event.end.date ?? instantOf(event.end)!;
    return Date.parse(end) <= Date.parse(start) ? 'The specified time range is empty.' : undefined;
  }

  /**
   * A series moved: each occurrence moves by as many days as its first one, to the series' new
   * time of day in the series' zone (so summer and winter times both keep it), with its length.
   */
  function moveOccurrences(before: StandinEvent, after: StandinEvent, occurrences: StandinEvent[], calendarZone: string): Array<Partial<StandinEvent>> {
    const zone = after.start.timeZone ?? calendarZone;
    if (JSON.stringify([before.start, before.end]) === JSON.stringify([after.start, after.end])) return occurrences.map(() => ({}));
    const dayIn = (time: StandinEvent['start']) => (time.date ? parseDay(time.date, { year: 2000, month: 1, day: 1 })! : dayOf(new Date(instantOf(time)!), zone));
    const days = (Date.UTC(dayIn(after.start).year, dayIn(after.start).month - 1, dayIn(after.start).day) - Date.UTC(dayIn(before.start).year, dayIn(before.start).month - 1, dayIn(before.start).day)) / 86_400_000;
    return occurrences.map((occurrence) => {
      const day = addDays(dayIn(occurrence.start), days);
      if (after.start.date) {
        const length = Date.parse(after.end.date!) - Date.parse(after.start.date);
        const first = isoDate(day);
        return { start: { date: first }, end: { date: new Date(Date.parse(first) + length).toISOString().slice(0, 10) } };
      }
      const [hour, minute] = formatClock(new Date(instantOf(after.start)!), zone).split(':').map(Number);
      const start = zonedTime(day, hour!, minute!, zone);
      const end = new Date(start.getTime() + Date.parse(instantOf(after.end)!) - Date.parse(instantOf(after.start)!));
      return { start: { dateTime: zonedIso(start, zone), timeZone: zone }, end: { dateTime: zonedIso(end, zone), timeZone: zone } };
    });
  }

  const eventResource = (event: StandinEvent, index: number) => ({ kind: 'calendar#event', id: event.id ?? `event-${index}`, status: event.status ?? 'confirmed', ...event });

  async function handleCalendar(request: http.IncomingMessage, response: http.ServerResponse, url: URL, account: StandinAccount, rest: string): Promise<void> {
    if (request.method === 'GET' && rest === 'users/me/calendarList') {
      const items = account.calendars.map((calendar) => ({ kind: 'calendar#calendarListEntry', ...calendar }));
      return sendJson(response, 200, { kind: 'calendar#calendarList', items });
    }
    const eventsPath = /^calendars\/([^/]+)\/events(\/quickAdd)?$/.exec(rest);
    if (request.method === 'POST' && eventsPath) {
      const calendar = calendarNamed(account, eventsPath[1]!, response);
      if (!calendar) return;
      if (calendar.accessRole !== 'owner' && calendar.accessRole !== 'writer') return apiError(response, 403, 'You need to have writer access to this calendar.', 'requiredAccessLevel', 'PERMISSION_DENIED');
      let event: StandinEvent;
      if (eventsPath[2]) {
        event = quickAddEvent(url.searchParams.get('text') ?? '', calendar);
      } else {
        const body = JSON.parse(await readBody(request)) as StandinEvent;
        if (!body.start || !body.end) return apiError(response, 400, 'Missing end time.', 'required', 'INVALID_ARGUMENT');
        for (const time of [body.start, body.end]) {
          if (time.date) continue;
          if (instantOf(time) === undefined) return apiError(response, 400, 'Missing time zone definition for start time.', 'missingTimeZone', 'INVALID_ARGUMENT');
        }
        event = { ...body };
      }
      const id = `ev${crypto.randomBytes(8).toString('hex')}`;
      const stored: StandinEvent = { ...event, id, calendarId: calendar.id };
      account.events.push(stored);
      inserted.push({ account: account.email, calendarId: calendar.id, sendUpdates: url.searchParams.get('sendUpdates') ?? undefined, event: stored });
      return sendJson(response, 200, eventResource(stored, 0));
    }
    const onePath = /^calendars\/([^/]+)\/events\/([^/]+)$/.exec(rest);
    if (onePath && request.method === 'PATCH') {
      const calendar = calendarNamed(account, onePath[1]!, response);
      if (!calendar) return;
      if (calendar.accessRole !== 'owner' && calendar.accessRole !== 'writer') return apiError(response, 403, 'You need to have writer access to this calendar.', 'requiredAccessLevel', 'PERMISSION_DENIED');
      const eventId = decodeURIComponent(onePath[2]!);
      const target = account.events.filter(inCalendar(account, calendar)).find((event) => event.id === eventId);
      if (!target) return apiError(response, 404, 'Not Found', 'notFound', 'NOT_FOUND');
      const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
      const changed = patchEvent(target, body);
      const problem = timesProblem(changed);
      if (problem) return apiError(response, 400, problem, problem.startsWith('The specified') ? 'timeRangeEmpty' : 'invalid', 'INVALID_ARGUMENT');
      // An occurrence changed alone is an exception: it keeps its own time when the series moves.
      if (target.recurringEventId && (body.start || body.end)) movedAlone.add(target);
      const occurrences = account.events.filter((event) => event.recurringEventId === eventId);
      if (occurrences.length > 0) {
        const moved = moveOccurrences(target, changed, occurrences, calendar.timeZone);
        const shared = Object.fromEntries(Object.entries(body).filter(([key]) => !['start', 'end', 'recurrence', 'id'].includes(key)));
        for (const [index, occurrence] of occurrences.entries()) replaceEvent(occurrence, { ...patchEvent(occurrence, shared), ...(movedAlone.has(occurrence) ? {} : moved[index]) });
      }
      replaceEvent(target, changed);
      patched.push({ account: account.email, calendarId: calendar.id, eventId, sendUpdates: url.searchParams.get('sendUpdates') ?? undefined, body });
      return sendJson(response, 200, eventResource(target, 0));
    }
    if (onePath && (request.method === 'DELETE' || request.method === 'GET')) {
      const calendar = calendarNamed(account, onePath[1]!, response);
      if (!calendar) return;
      const eventId = decodeURIComponent(onePath[2]!);
      // A series' id stands for every occurrence, as Google deletes a recurring event whole.
      const targets = account.events.filter(inCalendar(account, calendar)).filter((event) => event.id === eventId || (request.method === 'DELETE' && event.recurringEventId === eventId));
      if (targets.length === 0) return apiError(response, 404, 'Not Found', 'notFound', 'NOT_FOUND');
      if (request.method === 'GET') return sendJson(response, 200, eventResource(targets[0]!, 0));
      account.events = account.events.filter((event) => !targets.includes(event));
      deleted.push({ account: account.email, calendarId: calendar.id, eventId, sendUpdates: url.searchParams.get('sendUpdates') ?? undefined });
      response.writeHead(204);
      return void response.end();
    }
    if (request.method === 'GET' && eventsPath && !eventsPath[2]) {
      const calendar = calendarNamed(account, eventsPath[1]!, response);
      if (!calendar) return;
      const start = Date.parse(url.searchParams.get('timeMin') ?? '1970-01-01T00:00:00Z');
      const end = Date.parse(url.searchParams.get('timeMax') ?? '2100-01-01T00:00:00Z');
      // Like Google, q matches whole words of the title, description and place.
      const text = url.searchParams.get('q')?.trim().toLowerCase();
      const single = url.searchParams.get('singleEvents') === 'true';
      const items = account.events
        .filter(inCalendar(account, calendar))
        .filter((event) => !(single && event.recurrence?.length))
        .filter((event) => !text || text.split(/\s+/).every((word) => `${event.summary} ${event.location ?? ''} ${event.description ?? ''}`.toLowerCase().split(/\W+/).includes(word)))
        .filter((event) => overlaps(event, start, end))
        .sort((a, b) => Date.parse(a.start.dateTime ?? a.start.date!) - Date.parse(b.start.dateTime ?? b.start.date!))
        .map((event, index) => ({ kind: 'calendar#event', id: event.id ?? `event-${index}`, status: event.status ?? 'confirmed', ...event }));
      return sendJson(response, 200, { kind: 'calendar#events', summary: account.email, timeZone: url.searchParams.get('timeZone') ?? 'UTC', items });
    }
    if (request.method === 'POST' && rest === 'freeBusy') {
      const body = JSON.parse(await readBody(request)) as { timeMin: string; timeMax: string; items: Array<{ id: string }> };
      const start = Date.parse(body.timeMin);
      const end = Date.parse(body.timeMax);
      const busy = account.events
        .filter((event) => event.transparency !== 'transparent' && event.status !== 'cancelled' && !event.recurrence?.length && event.start.dateTime && overlaps(event, start, end))
        .map((event) => ({ start: new Date(Math.max(Date.parse(event.start.dateTime!), start)).toISOString(), end: new Date(Math.min(Date.parse(event.end.dateTime!), end)).toISOString() }));
      const calendars = Object.fromEntries(body.items.map((item) => [item.id, { busy }]));
      return sendJson(response, 200, { kind: 'calendar#freeBusy', timeMin: body.timeMin, timeMax: body.timeMax, calendars });
    }
    apiError(response, 404, 'Not Found', 'notFound', 'NOT_FOUND');
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const handle = async () => {
      if (url.pathname === '/o/oauth2/v2/auth') return handleAuthorize(url, response);
      if (request.method === 'POST' && url.pathname === '/token') return handleToken(request, response);
      if (request.method === 'POST' && url.pathname === '/revoke') {
        const value = url.searchParams.get('token') ?? new URLSearchParams(await readBody(request)).get('token') ?? '';
        const grant = refreshTokens.get(value) ?? refreshTokens.get(accessTokens.get(value)?.refreshToken ?? '');
        if (!grant || grant.revoked) return sendJson(response, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
        grant.revoked = true;
        return sendJson(response, 200, {});
      }
      const gmail = /^\/gmail\/v1\/users\/([^/]+)\/(.+)$/.exec(url.pathname);
      const calendar = /^\/calendar\/v3\/(.+)$/.exec(url.pathname);
      if (!gmail && !calendar) return apiError(response, 404, 'Not Found', 'notFound', 'NOT_FOUND');
      const account = authorizedAccount(request, response, url.pathname);
      apiRequests.push({ method: request.method ?? 'GET', path: url.pathname, account: account?.email });
      if (!account) return;
      if (state.hold) {
        const hungUp = new Promise<void>((resolve) => response.on('close', () => resolve()));
        await state.hold(url.pathname, hungUp);
        if (response.destroyed) return;
      }
      if (state.apiFailure) {
        const { status, reason, message } = state.apiFailure;
        return apiError(response, status, message, reason, status === 429 ? 'RESOURCE_EXHAUSTED' : 'PERMISSION_DENIED');
      }
      if (gmail) return handleGmail(request, response, url, account, gmail[2]!);
      return handleCalendar(request, response, url, account, calendar![1]!);
    };
    handle().catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: { code: 500, message: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    /** googleapis' rootUrl. */
    rootUrl: `${url}/`,
    oauthEndpoints: { authorizeUrl: `${url}/o/oauth2/v2/auth`, tokenUrl: `${url}/token`, revokeUrl: `${url}/revoke` },
    /** The same, as the environment the CLI reads. */
    environment: {
      GOOGLE_API_ROOT_URL: `${url}/`,
      GOOGLE_OAUTH_AUTH_URL: `${url}/o/oauth2/v2/auth`,
      GOOGLE_OAUTH_TOKEN_URL: `${url}/token`,
      GOOGLE_OAUTH_REVOKE_URL: `${url}/revoke`,
    },
    state,
    accounts,
    drafts,
    sent,
    inserted,
    deleted,
    patched,
    authorizations,
    tokenRequests,
    apiRequests,
    gmailQueries,
    addAccount,
    issueTokens,
    revokeGrant,
    isRevoked: (refreshToken: string) => refreshTokens.get(refreshToken)?.revoked ?? true,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
