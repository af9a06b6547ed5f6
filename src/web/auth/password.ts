import crypto from 'node:crypto';
import bcrypt from 'bcrypt';

const bcryptCost = 12;

export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, bcryptCost);

/** bcrypt.compare runs on libuv's thread pool and is constant-time in the hash. */
export const verifyPassword = (password: string, hash: string): Promise<boolean> => bcrypt.compare(password, hash);

/** Four groups of five letters and digits (about 103 bits): strong, and typeable on a phone. */
export function generatePassword(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  const groups: string[] = [];
  for (let group = 0; group < 4; group += 1) {
    let text = '';
    for (let index = 0; index < 5; index += 1) text += alphabet[crypto.randomInt(alphabet.length)];
    groups.push(text);
  }
  return groups.join('-');
}

export const generateSecretKey = (): string => crypto.randomBytes(48).toString('base64url');
