/*
 * Google accounts for the tools and the CLI. Everything heavy loads on first use only:
 * google-auth-library when an account is first used, and @googleapis/gmail or
 * @googleapis/calendar (Google's per-API packages, the same clients as the 208 MB googleapis
 * package) when a Gmail or Calendar tool runs. Type imports below are erased at run time.
 */
import type { OAuth2Client, Credentials } from 'google-auth-library';
import type { gmail_v1 } from '@googleapis/gmail';
import type { calendar_v3 } from '@googleapis/calendar';
import type { Config } from '../../config/config.js';
import { ToolError } from '../../engine/tools/tool.js';
import { explainGoogleFailure, isInvalidGrant, reauthorizeCommand, reauthorizeMessage, type ExplainOptions } from './google-errors.js';
import { GoogleSetupError, readOAuthClientFile } from './oauth-client-file.js';
import { createTokenStore, type StoredTokens } from './token-store.js';

export type Gmail = gmail_v1.Gmail;
export type Calendar = calendar_v3.Calendar;

/** What a Gmail or Calendar call tells the model when no account is connected. */
export const noGoogleAccountMessage = `No Google account is authorized yet. Ask the person to run \`${reauthorizeCommand()}\` on the Hearth computer (once per account).`;

/** Where OAuth requests go; unset fields use Google's own addresses. */
export interface OAuthEndpoints {
  authorizeUrl?: string;
  tokenUrl?: string;
  revokeUrl?: string;
}

export interface GoogleLogger {
  debug(object: object, message: string): void;
  warn?(object: object, message: string): void;
}

export interface GoogleServicesOptions {
  tokensDir: string;
  /** The Desktop-app OAuth client JSON. */
  credentialsFile: string;
  /** For tests: the API root (googleapis' `rootUrl`), such as a local stand-in. */
  rootUrl?: string;
  oauthEndpoints?: OAuthEndpoints;
  logger?: GoogleLogger;
  fetchImplementation?: typeof fetch;
  /** Calendar days and times are read and shown in this zone (default: the computer's). */
  timeZone?: string;
  /** Per HTTP request; a tool's own time limit still applies on top. */
  requestTimeoutMs?: number;
}

/** Google's answers are retried a little (429, 5xx, dropped connections), never for long. */
const retryConfig = { retry: 2, noResponseRetries: 1, retryDelay: 200, maxRetryDelay: 2000, totalTimeout: 8000 };

/** A connected account, as the tools page shows it: working, or refused by Google until `npm run auth:gmail` is run again. */
export interface GoogleAccountState {
  account: string;
  state: 'connected' | 'needs-reauthorization';
}

export function createGoogleServices(options: GoogleServicesOptions) {
  const tokens = createTokenStore(options.tokensDir);
  // Asked on first use: the first Intl call loads ICU's data (about 6 MB of memory), which a
  // Hearth whose Google tools are not used yet does not need at start.
  let zone = options.timeZone;
  const transporterOptions = options.fetchImplementation ? { fetchImplementation: options.fetchImplementation } : {};
  /** One client per account, rebuilt when the CLI replaced the account's refresh token. */
  const clients = new Map<string, { client: OAuth2Client; refreshToken: string }>();
  const gmailClients = new WeakMap<OAuth2Client, Gmail>();
  const calendarClients = new WeakMap<OAuth2Client, Calendar>();
  /** The refresh token Google refused per account: a new one from the CLI clears the state by itself. */
  const refusedRefreshTokens = new Map<string, string>();

  function listAccounts(): string[] {
    return tokens.listAccounts();
  }

  /**
   * The accounts a call is about: the one it names (any capitalisation), or every authorized
   * account when it names none. Throws a ToolError the model can relay.
   */
  function resolveAccounts(requested?: string): string[] {
    const accounts = listAccounts();
    if (accounts.length === 0) throw new ToolError(noGoogleAccountMessage);
    if (requested === undefined || requested.trim() === '') return accounts;
    const wanted = requested.trim().toLowerCase();
    const found = accounts.find((account) => account.toLowerCase() === wanted);
    if (!found) throw new ToolError(`"${requested.trim()}" is not an authorized account. Authorized accounts: ${accounts.join(', ')}.`);
    return [found];
  }

  /** Exactly one account: the named one, or the only one. */
  function chooseAccount(requested?: string): string {
    const accounts = resolveAccounts(requested);
    if (accounts.length > 1) throw new ToolError(`Several accounts are authorized; say which one with account: (${accounts.join(', ')}).`);
    return accounts[0]!;
  }

  /** A fresh OAuth client for this app (the CLI authorizes with it; tools get it with tokens). */
  async function createOAuthClient(redirectUri?: string): Promise<OAuth2Client> {
    const secrets = readOAuthClientFile(options.credentialsFile);
    const { OAuth2Client } = await import('google-auth-library');
    const endpoints = options.oauthEndpoints ?? {};
    return new OAuth2Client({
      clientId: secrets.clientId,
      clientSecret: secrets.clientSecret,
      redirectUri,
      endpoints: {
        ...(endpoints.authorizeUrl ? { oauth2AuthBaseUrl: endpoints.authorizeUrl } : {}),
        ...(endpoints.tokenUrl ? { oauth2TokenUrl: endpoints.tokenUrl } : {}),
        ...(endpoints.revokeUrl ? { oauth2RevokeUrl: endpoints.revokeUrl } : {}),
      },
      transporterOptions,
      // A 401 gets one refresh and retry: a revoked grant then shows as invalid_grant.
      forceRefreshOnFailure: true,
    });
  }

  /** The account's client with its stored tokens; refreshed tokens are written back. */
  async function authorizedClient(account: string): Promise<OAuth2Client> {
    const stored = tokens.read(account);
    if (!stored) throw new ToolError(`"${account}" is not an authorized account. Authorized accounts: ${listAccounts().join(', ') || 'none'}.`);
    if (!stored.refresh_token) {
      throw new ToolError(reauthorizeMessage(account, `The saved authorization for ${account} has no refresh token.`));
    }
    const cached = clients.get(account);
    if (cached && cached.refreshToken === stored.refresh_token) return cached.client;

    let client: OAuth2Client;
    try {
      client = await createOAuthClient();
    } catch (error) {
      if (error instanceof GoogleSetupError) throw new ToolError(error.message);
      throw error;
    }
    client.setCredentials(stored as Credentials);
    client.on('tokens', (fresh: Credentials) => {
      // This runs inside the refresh: a file that cannot be written must not fail the call that
      // just got a good token (it would fail again at every call). The next start refreshes again.
      try {
        tokens.merge(account, fresh as StoredTokens);
        options.logger?.debug({ account }, 'refreshed a Google access token');
      } catch (error) {
        options.logger?.warn?.({ account, err: error }, 'could not save the refreshed Google token');
      }
    });
    clients.set(account, { client, refreshToken: stored.refresh_token });
    return client;
  }

  function apiOptions(client: OAuth2Client) {
    return {
      auth: client,
      retryConfig,
      timeout: options.requestTimeoutMs ?? 10_000,
      ...(options.rootUrl ? { rootUrl: options.rootUrl } : {}),
      ...(options.fetchImplementation ? { fetchImplementation: options.fetchImplementation } : {}),
    };
  }

  /** The Gmail API for any authorized client (the CLI's, before tokens are saved). */
  async function gmailFor(client: OAuth2Client): Promise<Gmail> {
    let api = gmailClients.get(client);
    if (!api) {
      const { gmail_v1: gmailModule } = await import('@googleapis/gmail');
      api = new gmailModule.Gmail(apiOptions(client));
      gmailClients.set(client, api);
    }
    return api;
  }

  async function gmail(account: string): Promise<Gmail> {
    return gmailFor(await authorizedClient(account));
  }

  async function calendar(account: string): Promise<Calendar> {
    const client = await authorizedClient(account);
    let api = calendarClients.get(client);
    if (!api) {
      const { calendar_v3: calendarModule } = await import('@googleapis/calendar');
      api = new calendarModule.Calendar(apiOptions(client));
      calendarClients.set(client, api);
    }
    return api;
  }

  /**
   * Runs one Google call for an account and turns failures into messages the person can act
   * on. A revoked grant also drops the cached client, so a re-authorization takes effect.
   */
  async function call<T>(explain: ExplainOptions, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isInvalidGrant(error)) {
        const refused = clients.get(explain.account)?.refreshToken;
        if (refused) refusedRefreshTokens.set(explain.account, refused);
        clients.delete(explain.account);
      }
      const explained = explainGoogleFailure(error, explain);
      // Explained failures go back to the model; the engine logs the ones we could not explain.
      if (explained instanceof ToolError) options.logger?.debug({ account: explain.account, reason: explained.message }, 'a Google request failed');
      throw explained;
    }
  }

  /**
   * Each account with a token file, and whether it works: its token has no refresh token, cannot
   * be read, or Google refused it since Hearth started (a revoked or expired grant).
   */
  function accountStates(): GoogleAccountState[] {
    return listAccounts().map((account) => {
      let refreshToken: string | null | undefined;
      try {
        refreshToken = tokens.read(account)?.refresh_token;
      } catch {
        refreshToken = undefined;
      }
      const works = Boolean(refreshToken) && refusedRefreshTokens.get(account) !== refreshToken;
      return { account, state: works ? 'connected' : 'needs-reauthorization' };
    });
  }

  return {
    get timeZone(): string {
      return (zone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
    },
    tokens,
    listAccounts,
    accountStates,
    resolveAccounts,
    chooseAccount,
    createOAuthClient,
    authorizedClient,
    gmailFor,
    gmail,
    calendar,
    call,
  };
}

export type GoogleServices = ReturnType<typeof createGoogleServices>;

// Every tool is handed the Google accounts: the engine's ToolServices gains them here.
declare module '../../engine/tools/tool.js' {
  interface ToolServices {
    /** Gmail and Calendar accounts, shared by every Google tool. */
    google: GoogleServices;
  }
}

export function googleServicesFromConfig(config: Config, logger?: GoogleLogger): GoogleServices {
  return createGoogleServices({
    tokensDir: config.tokensDir,
    credentialsFile: config.googleCredentials,
    rootUrl: config.googleApiRootUrl,
    oauthEndpoints: {
      authorizeUrl: config.googleOAuthAuthUrl,
      tokenUrl: config.googleOAuthTokenUrl,
      revokeUrl: config.googleOAuthRevokeUrl,
    },
    logger,
  });
}
