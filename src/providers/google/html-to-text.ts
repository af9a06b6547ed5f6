/*
 * HTML email → plain text for the model. Not a browser: a careful pass of regular expressions
 * that keeps what a reader sees (paragraphs, line breaks, list items, link targets) and drops
 * what they do not (scripts, styles, comments, hidden preheaders, tracking pixels).
 */

const namedEntities: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ensp: ' ', emsp: ' ', thinsp: ' ',
  copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—', ndash: '–', minus: '−',
  lsquo: '‘', rsquo: '’', sbquo: '‚', ldquo: '“', rdquo: '”', bdquo: '„', laquo: '«', raquo: '»',
  bull: '•', middot: '·', deg: '°', euro: '€', pound: '£', yen: '¥', cent: '¢', sect: '§', para: '¶',
  times: '×', divide: '÷', plusmn: '±', frac12: '½', frac14: '¼', frac34: '¾', iexcl: '¡', iquest: '¿',
  agrave: 'à', aacute: 'á', acirc: 'â', atilde: 'ã', auml: 'ä', aring: 'å', aelig: 'æ', ccedil: 'ç',
  egrave: 'è', eacute: 'é', ecirc: 'ê', euml: 'ë', igrave: 'ì', iacute: 'í', icirc: 'î', iuml: 'ï',
  ntilde: 'ñ', ograve: 'ò', oacute: 'ó', ocirc: 'ô', otilde: 'õ', ouml: 'ö', oslash: 'ø', szlig: 'ß',
  ugrave: 'ù', uacute: 'ú', ucirc: 'û', uuml: 'ü', yacute: 'ý', yuml: 'ÿ',
  Agrave: 'À', Aacute: 'Á', Acirc: 'Â', Atilde: 'Ã', Auml: 'Ä', Aring: 'Å', AElig: 'Æ', Ccedil: 'Ç',
  Egrave: 'È', Eacute: 'É', Ecirc: 'Ê', Euml: 'Ë', Igrave: 'Ì', Iacute: 'Í', Icirc: 'Î', Iuml: 'Ï',
  Ntilde: 'Ñ', Ograve: 'Ò', Oacute: 'Ó', Ocirc: 'Ô', Otilde: 'Õ', Ouml: 'Ö', Oslash: 'Ø',
  Ugrave: 'Ù', Uacute: 'Ú', Ucirc: 'Û', Uuml: 'Ü', Yacute: 'Ý',
  zwnj: '', zwj: '', shy: '', lrm: '', rlm: '',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);?/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '';
    }
    // Only known names, and only with their semicolon unless common (&amp without ; is frequent).
    const value = namedEntities[name] ?? namedEntities[name.toLowerCase()];
    if (value === undefined) return entity;
    return entity.endsWith(';') || ['amp', 'lt', 'gt', 'quot', 'nbsp'].includes(name.toLowerCase()) ? value : entity;
  });
}

const blockTags = 'address|article|aside|blockquote|center|dd|details|dialog|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header|hr|main|nav|ol|p|pre|section|summary|table|tbody|thead|tfoot|tr|ul';

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** Links keep their target when it adds something and is short enough to be worth the context. */
function linkText(tag: string, inner: string): string {
  const href = decodeEntities(attribute(tag, 'href') ?? '').trim();
  const text = inner.trim();
  if (!/^(https?:|mailto:)/i.test(href) || href.length > 120) return inner;
  const target = href.replace(/^mailto:/i, '');
  if (text === '') return target;
  if (decodeEntities(text.replace(/<[^>]*>/g, '')).trim() === target) return inner;
  return `${inner} (${target})`;
}

/** Longer HTML is cut first: the regular expressions below must stay fast on any input. */
const maximumHtmlLength = 400_000;

export function htmlToText(html: string): string {
  let text = html
    .slice(0, maximumHtmlLength)
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '')
    .replace(/<(script|style|head|title|template|svg|object|iframe)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<(script|style|head)\b[^>]*>[\s\S]*$/gi, '') // an unclosed one hides the rest
    // Hidden elements (preheaders, tricks): best effort, innermost first, no nesting awareness.
    .replace(/<(\w+)\b[^>]*style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden)[^"']*["'][^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<(\w+)\b[^>]*\shidden(?:\s*=\s*["']?[^"'\s>]*["']?)?[\s>][\s\S]*?<\/\1\s*>/gi, '');

  // Preformatted text keeps its line breaks; everywhere else source whitespace is one space.
  text = text.replace(/<pre\b[^>]*>([\s\S]*?)<\/pre\s*>/gi, (_match, inner: string) => `<p>${inner.replace(/\r?\n/g, '<br>')}</p>`);
  text = text.replace(/\s+/g, ' ');

  text = text
    .replace(/<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi, (_match, tag: string, inner: string) => linkText(` ${tag}`, inner))
    .replace(/<br\b[^>]*>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/li\s*>/gi, '')
    .replace(/<\/?(?:td|th)\b[^>]*>/gi, ' ')
    .replace(new RegExp(`<\\/?(?:${blockTags})\\b[^>]*>`, 'gi'), '\n')
    .replace(/<img\b[^>]*>/gi, (tag) => {
      const alt = attribute(tag, 'alt')?.trim();
      return alt ? ` ${alt} ` : '';
    })
    .replace(/<\/?[a-z][^>]*>/gi, '')
    .replace(/<[!?/][^>]*>/g, '');

  text = decodeEntities(text)
    // Invisible characters, the combining grapheme joiner among them (alone, not combining here).
    // eslint-disable-next-line no-misleading-character-class
    .replace(/[\u200b-\u200d\u2060\ufeff\u034f\u00ad]/g, '')
    .replace(/[ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g, ' ');
  return text
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
