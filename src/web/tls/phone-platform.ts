/** Which phone's steps the set-up page shows first, told from the browser's User-Agent. */
export type PhonePlatform = 'apple' | 'android' | 'other';

/**
 * iPhone, iPad and iPod browsers (Safari and the others, which all name the device) and Android
 * browsers say so in their User-Agent. An iPad asking for desktop sites says "Macintosh": it
 * reads as "other", and the page then offers both sets of steps.
 */
export function phonePlatformOf(userAgent: string | undefined): PhonePlatform {
  if (!userAgent) return 'other';
  if (/\b(iPhone|iPad|iPod)\b/.test(userAgent)) return 'apple';
  if (/\bAndroid\b/.test(userAgent)) return 'android';
  return 'other';
}
