import { ZxcvbnFactory, type MatchExtended } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';

/**
 * zxcvbn's score 3 means about 10^8 guesses or more: at the login budget's 30 wrong passwords per
 * 15 minutes from untrusted browsers, years of guessing. Scores 0-2 fall to a dictionary attack.
 */
export const minimumPasswordScore = 3;

export interface PasswordStrength {
  /** Why this password is easy to guess, in one line, or undefined when it is strong enough. */
  weakness(password: string): string | undefined;
}

const plurals: Record<string, string> = { 'a common word': 'common words', 'a common password': 'common passwords', 'a name': 'names' };
const countWords = ['', 'one', 'two', 'three', 'four'];

/** What one part of the password is, in words a person recognises. */
function describePart(match: MatchExtended, alone: boolean): string | undefined {
  const token = match.token;
  switch (match.pattern) {
    case 'dictionary': {
      if (match.dictionaryName === 'userInputs') return "the app's name";
      // "1234" inside a longer password reads as numbers; "12345678" alone is a common password.
      if (/^\d+$/.test(token) && !alone) return 'numbers';
      const what =
        match.dictionaryName === 'passwords-common'
          ? 'a common password'
          : /^(firstnames|lastnames)/.test(match.dictionaryName)
            ? 'a name'
            : 'a common word';
      if (match.l33t) return `a disguised ${what.replace(/^a /, '')}`;
      if (match.reversed) return `${what} spelled backwards`;
      return what;
    }
    case 'spatial':
      return 'a row of keys on the keyboard';
    case 'repeat':
      return 'repeated characters';
    case 'sequence':
      return /^\d+$/.test(token) ? 'numbers in order' : 'letters in order';
    case 'date':
      return 'a date';
    case 'regex':
      return match.regexName === 'recentYear' ? 'a year' : undefined;
    case 'bruteforce': {
      const text = token.trim();
      if (text === '') return undefined;
      if (/^\d+$/.test(text)) return 'numbers';
      if (/^[^\p{L}\p{N}]+$/u.test(text)) return 'symbols';
      if (/^[^\p{L}]+$/u.test(text)) return 'numbers and symbols';
      return 'a few other characters';
    }
    default:
      return undefined;
  }
}

/** "a common word with numbers", "two common words", "repeated characters". */
function describe(sequence: MatchExtended[]): string {
  const parts = sequence.map((match) => describePart(match, sequence.length === 1)).filter((part): part is string => part !== undefined);
  if (parts.length === 0) return 'it is too short';
  const counted = new Map<string, number>();
  for (const part of parts) counted.set(part, (counted.get(part) ?? 0) + 1);
  const phrases = [...counted].map(([part, count]) => (count > 1 && plurals[part] ? `${countWords[count] ?? count} ${plurals[part]}` : part));
  const [first, ...rest] = phrases;
  return `it is ${first}${rest.length > 0 ? ` with ${rest.join(' and ')}` : ''}`;
}

/**
 * A well-kept zxcvbn port with English and common-password dictionaries. Building it loads the
 * dictionaries (about a second), so only `npm run set-password` makes one.
 */
export function createPasswordStrength(): PasswordStrength {
  const zxcvbn = new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary, userInputs: ['hearth'] },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  });
  return {
    weakness(password) {
      const result = zxcvbn.check(password);
      if (result.score >= minimumPasswordScore) return undefined;
      return `This password is easy to guess (${describe(result.sequence)}): choose a longer one, such as four random words.`;
    },
  };
}
