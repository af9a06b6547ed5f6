/*
 * The OAuth flow of `npm run auth:gmail`, for an installed ("Desktop app") client:
 * a loopback redirect on 127.0.0.1, PKCE (S256), a random `state` that must come back,
 * offline access with a consent prompt (so Google returns a refresh token).
 *
 * The browser may be on another device (a headless home server): then its redirect to
 * 127.0.0.1 fails, and the person pastes the address it was sent to. Both paths race; the
 * first good answer wins.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import type { CodeChallengeMethod } from 'google-auth-library';
import type { GoogleServices } from './google-services.js';
import type { StoredTokens } from './token-store.js';

/** What `--read-only` asks for: reading mail and the calendar, and saving drafts (Hearth before it could act). */
export const readOnlyScopes = {
  'https://www.googleapis.com/auth/gmail.readonly': 'read and search mail',
  'https://www.googleapis.com/auth/gmail.compose': 'save drafts and send mail',
  'https://www.googleapis.com/auth/calendar.readonly': 'read the calendar',
};

/**
 * What Hearth asks for by default: also sorting mail (gmail.modify: trash, labels, read and
 * unread; it does not allow deleting for good) and changing events (calendar.events, not the
 * calendars themselves or their sharing).
 */
export const googleScopes: Record<string, string> = {
  ...readOnlyScopes,
  'https://www.googleapis.com/auth/gmail.modify': 'trash, label and mark mail',
  'https://www.googleapis.com/auth/calendar.events': 'add, change and delete calendar events',
};

export interface AuthorizeOptions {
  google: GoogleServices;
  /** Loopback port; 0 picks a free one. */
  port: number;
  /** The address the person means to authorize (pre-fills Google's account chooser). */
  loginHint?: string;
  /** Ask only for reading (and drafts): an assistant that cannot act. */
  readOnly?: boolean;
  /** Where a pasted address may come from (stdin); absent or closed is fine. */
  input?: NodeJS.ReadableStream;
  print: (text: string) => void;
  timeoutMs?: number;
}

export interface AuthorizeResult {
  account: string;
  /** Scopes the person left unticked on the consent screen. */
  missingScopes: string[];
  tokens: StoredTokens;
}

export class AuthorizationError extends Error {
  override name = 'AuthorizationError';
}

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;max-width:32rem;margin:4rem auto"><h1>${title}</h1><p>${text}</p></body>`;

type Answer = { code: string } | { error: string };

/** Reads code, state and error from a redirect address (or just its query string). */
export function readRedirect(text: string): { code?: string; state?: string; error?: string } | undefined {
  const trimmed = text.trim().replace(/^["'<]|[>"']$/g, '');
  if (!trimmed) return undefined;
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(trimmed) ? trimmed : `http://127.0.0.1/${trimmed.startsWith('?') ? '' : '?'}${trimmed}`);
  } catch {
    return undefined;
  }
  const parameters = url.searchParams;
  if (!parameters.has('code') && !parameters.has('error')) return undefined;
  return { code: parameters.get('code') ?? undefined, state: parameters.get('state') ?? undefined, error: parameters.get('error') ?? undefined };
}

export async function authorizeAccount(options: AuthorizeOptions): Promise<AuthorizeResult> {
  const { google, print } = options;
  const wanted = options.readOnly ? readOnlyScopes : googleScopes;
  const state = crypto.randomBytes(24).toString('base64url');
  let settle: (answer: Answer) => void = () => {};
  const answered = new Promise<Answer>((resolve) => (settle = resolve));

  /** The one check for both paths: a code only counts with this attempt's state. */
  function consider(redirect: { code?: string; state?: string; error?: string }, source: 'browser' | 'paste'): 'accepted' | 'stale' | 'empty' {
    if (redirect.state !== state) return 'stale';
    if (redirect.error) {
      settle({ error: redirect.error });
      return 'accepted';
    }
    if (!redirect.code) return 'empty';
    settle({ code: redirect.code });
    if (source === 'paste') print('Got the code from the pasted address.');
    return 'accepted';
  }

  const server = http.createServer((request, response) => {
    const redirect = readRedirect(`http://127.0.0.1${request.url ?? '/'}`);
    if (!redirect) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const result = consider(redirect, 'browser');
    const html =
      result === 'accepted'
        ? redirect.error
          ? page('Not authorized', 'Google did not grant access. You can close this tab; the terminal says what to do next.')
          : page('Hearth is authorized', 'You can close this tab and return to the terminal.')
        : page('Out of date', 'This answer belongs to another sign-in attempt. Use the link the terminal printed last.');
    response.writeHead(result === 'accepted' ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    if (result === 'stale') print('Ignored an answer from another attempt (its state did not match).');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new AuthorizationError(`Port ${options.port} on 127.0.0.1 is in use. Use another: --port 8890 (or GMAIL_AUTH_PORT).`) : error),
    );
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  let lines: readline.Interface | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const client = await google.createOAuthClient(redirectUri);
    const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
    const url = client.generateAuthUrl({
      access_type: 'offline',
      prompt: 'consent',
      scope: Object.keys(wanted),
      // Incremental authorization: scopes granted before stay granted beside the new ones.
      include_granted_scopes: true,
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256' as CodeChallengeMethod,
      redirect_uri: redirectUri,
      ...(options.loginHint ? { login_hint: options.loginHint } : {}),
    });

    print(
      [
        'Open this address in a browser and allow access:',
        '',
        url,
        '',
        `Waiting for Google to send the browser back to ${redirectUri}`,
        'If the browser is on another device, the last page will fail to load: copy the whole address from its address bar, paste it here and press Enter.',
      ].join('\n'),
    );

    if (options.input) {
      lines = readline.createInterface({ input: options.input, terminal: false });
      lines.on('line', (line) => {
        const redirect = readRedirect(line);
        if (!redirect) {
          if (line.trim()) print('That does not look like the address the browser was sent to (it has ?code=...&state=...). Try again.');
          return;
        }
        const result = consider(redirect, 'paste');
        if (result === 'stale') print('That address belongs to another attempt (its state does not match). Paste the one from this attempt.');
        if (result === 'empty') print('That address has no code. Paste the whole address, including ?code=...&state=...');
      });
      // A closed input (no terminal, CI) is fine: the loopback still works.
      lines.on('error', () => {});
    }

    const timeoutMs = options.timeoutMs ?? 5 * 60_000;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new AuthorizationError(`No answer from Google after ${Math.round(timeoutMs / 60_000)} minutes. Run the command again.`)), timeoutMs);
    });
    const answer = await Promise.race([answered, timedOut]);
    if ('error' in answer) {
      throw new AuthorizationError(answer.error === 'access_denied' ? 'Access was not granted (the consent screen was cancelled). Run the command again to retry.' : `Google answered: ${answer.error}.`);
    }

    const { tokens } = await client.getToken({ code: answer.code, codeVerifier, redirect_uri: redirectUri });
    if (!tokens.refresh_token) {
      throw new AuthorizationError('Google sent no refresh token. Remove Hearth at https://myaccount.google.com/permissions and run the command again.');
    }
    client.setCredentials(tokens);
    const gmail = await google.gmailFor(client);
    const profile = await gmail.users.getProfile({ userId: 'me' });
    const account = profile.data.emailAddress?.toLowerCase();
    if (!account) throw new AuthorizationError('Google did not say which address this account has.');

    const granted = new Set((tokens.scope ?? '').split(/\s+/));
    const missingScopes = Object.keys(wanted).filter((scope) => !granted.has(scope));
    const stored: StoredTokens = { ...tokens };
    google.tokens.write(account, stored);
    return { account, missingScopes, tokens: stored };
  } finally {
    clearTimeout(timer);
    lines?.close();
    server.closeAllConnections();
    server.close();
  }
}
