import fs from 'node:fs';

/** The OAuth client the person created in Google Cloud Console (type "Desktop app"). */
export interface OAuthClientSecrets {
  clientId: string;
  clientSecret: string | undefined;
}

/** Raised when the client file is missing or wrong; the message says how to fix it. */
export class GoogleSetupError extends Error {
  override name = 'GoogleSetupError';
}

export function howToGetOAuthClient(file: string): string {
  return [
    `Hearth needs a Google OAuth client file at ${file} (or set GOOGLE_CREDENTIALS to its path). To make one:`,
    '  1. Open https://console.cloud.google.com/ and create or pick a project.',
    '  2. APIs & Services → Library: enable the "Gmail API" and the "Google Calendar API".',
    '  3. APIs & Services → OAuth consent screen: set it up (External, add yourself as a test user).',
    '  4. APIs & Services → Credentials → Create credentials → OAuth client ID → Application type "Desktop app".',
    `  5. Download the JSON and save it as ${file}.`,
  ].join('\n');
}

export function readOAuthClientFile(file: string): OAuthClientSecrets {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new GoogleSetupError(howToGetOAuthClient(file));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GoogleSetupError(`${file} is not valid JSON. Download the OAuth client JSON again.\n${howToGetOAuthClient(file)}`);
  }
  const root = (parsed ?? {}) as Record<string, Record<string, unknown> | undefined>;
  if (root.web && !root.installed) {
    throw new GoogleSetupError(`${file} is a "Web application" client; Hearth needs one of type "Desktop app", which allows the 127.0.0.1 redirect.\n${howToGetOAuthClient(file)}`);
  }
  const client = root.installed ?? (parsed as Record<string, unknown>);
  if (typeof client.client_id !== 'string' || client.client_id === '') {
    throw new GoogleSetupError(`${file} has no client_id: is it the OAuth client JSON?\n${howToGetOAuthClient(file)}`);
  }
  return {
    clientId: client.client_id,
    clientSecret: typeof client.client_secret === 'string' ? client.client_secret : undefined,
  };
}
