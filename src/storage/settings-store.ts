import type { SqliteDatabase } from './database.js';

/** The model the person last picked or sent with: a new chat starts with it. */
export const lastModelSetting = 'chat.last-model';

/** Small persistent values: those the server generates for itself (password hash, session secret) and the person's choices. */
export interface SettingsStore {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

export function createSettingsStore(database: SqliteDatabase): SettingsStore {
  const select = database.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
  const upsert = database.prepare<[string, string]>(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  return {
    get: (key) => select.get(key)?.value,
    set: (key, value) => void upsert.run(key, value),
  };
}
