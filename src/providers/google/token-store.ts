import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicallySync } from '../../storage/atomic-file.js';

/** What Google's token endpoint returned, as google-auth-library's `Credentials` stores it. */
export interface StoredTokens {
  access_token?: string | null;
  refresh_token?: string | null;
  expiry_date?: number | null;
  scope?: string | null;
  token_type?: string | null;
  id_token?: string | null;
}

/** An address that can safely name a file: no folders, no hidden files. */
export function isAccountAddress(text: string): boolean {
  return /^[^\s/\\@:"<>]+@[^\s/\\@:"<>]+\.[^\s/\\@:"<>]+$/.test(text) && !text.startsWith('.');
}

/**
 * tokens/<email>.json, one file per Google account. The files hold refresh tokens (keys to
 * someone's mailbox), so the folder is 0700 and each file 0600, written atomically.
 */
export function createTokenStore(tokensDir: string) {
  function fileFor(account: string): string {
    if (!isAccountAddress(account)) throw new Error(`"${account}" is not an email address`);
    return path.join(tokensDir, `${account}.json`);
  }

  function ensureFolder(): void {
    fs.mkdirSync(tokensDir, { recursive: true, mode: 0o700 });
    // mkdir's mode is masked by umask and ignored for an existing folder.
    fs.chmodSync(tokensDir, 0o700);
  }

  function read(account: string): StoredTokens | undefined {
    try {
      const value: unknown = JSON.parse(fs.readFileSync(fileFor(account), 'utf8'));
      return typeof value === 'object' && value !== null ? (value as StoredTokens) : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  function write(account: string, tokens: StoredTokens): void {
    ensureFolder();
    writeFileAtomicallySync(fileFor(account), `${JSON.stringify(tokens, null, 2)}\n`);
  }

  return {
    folder: tokensDir,
    fileFor,
    read,
    write,

    /** Authorized accounts, from the file names. */
    listAccounts(): string[] {
      if (!fs.existsSync(tokensDir)) return [];
      return fs
        .readdirSync(tokensDir)
        .filter((file) => file.endsWith('.json'))
        .map((file) => file.slice(0, -'.json'.length))
        .filter(isAccountAddress)
        .sort();
    },

    /**
     * Writes refreshed tokens over the old ones. A refresh answer has no refresh token, so the
     * stored one is kept. Nothing is written for an account removed in the meantime.
     */
    merge(account: string, update: StoredTokens): void {
      const current = read(account);
      if (!current) return;
      const defined = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined && value !== null));
      write(account, { ...current, ...defined, refresh_token: update.refresh_token || current.refresh_token });
    },

    remove(account: string): boolean {
      try {
        fs.unlinkSync(fileFor(account));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
    },
  };
}

export type TokenStore = ReturnType<typeof createTokenStore>;
