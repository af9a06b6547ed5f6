/*
 * A chat opened at a search result shows the matching message with the searched words marked.
 * Words are matched as the search matched them: each word that starts with a searched word
 * (letters and digits in any script), case-insensitive. Only text between tags is touched, and
 * entities (&amp;) are left whole, so the HTML stays as safe as it was.
 */
const wordPattern = /[\p{L}\p{N}_]+/gu;
const mostWords = 12;
const escapeForRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `html` (safe HTML: a rendered reply, or escaped text) with <mark class="search-mark"> around each match. */
export function markSearchWords(html: string, query: string): string {
  const words = (query.match(wordPattern) ?? []).slice(0, mostWords);
  if (words.length === 0) return html;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${words.map(escapeForRegExp).join('|')})[\\p{L}\\p{N}_]*`, 'giu');
  return html
    .split(/(<[^>]*>|&[#\w]+;)/)
    .map((piece, index) => (index % 2 === 1 ? piece : piece.replace(pattern, (word) => `<mark class="search-mark">${word}</mark>`)))
    .join('');
}
