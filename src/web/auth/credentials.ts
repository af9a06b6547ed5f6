import type { Config } from '../../config/config.js';
import type { SettingsStore } from '../../storage/settings-store.js';
import { generatePassword, generateSecretKey, hashPassword } from './password.js';

export interface Credentials {
  passwordHash: string;
  secretKey: string;
  /** Set only on the very first start, so it can be shown once. */
  generatedPassword: string | undefined;
}

export const passwordHashSetting = 'password_hash';
export const secretKeySetting = 'secret_key';

/**
 * The environment wins; otherwise values generated on first start are kept in the database,
 * so the next start (and every logged-in phone) keeps working.
 */
export async function ensureCredentials(config: Config, settings: SettingsStore): Promise<Credentials> {
  let secretKey = config.secretKey ?? settings.get(secretKeySetting);
  if (!secretKey) {
    secretKey = generateSecretKey();
    settings.set(secretKeySetting, secretKey);
  }
  let passwordHash = config.passwordHash ?? settings.get(passwordHashSetting);
  let generatedPassword: string | undefined;
  if (!passwordHash) {
    generatedPassword = generatePassword();
    passwordHash = await hashPassword(generatedPassword);
    settings.set(passwordHashSetting, passwordHash);
  }
  return { passwordHash, secretKey, generatedPassword };
}
