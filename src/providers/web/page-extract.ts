/*
 * A web page's main text as Markdown: linkedom builds the DOM, Mozilla's Readability (Firefox's
 * Reader View) finds the article and drops navigation, ads and footers, Turndown writes it as
 * Markdown. Runs in the page worker (page-worker.ts), never on the server's thread.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export interface ExtractedPage {
  title: string;
  markdown: string;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
// Pictures and embeds cost tokens and say nothing to a text model; forms and scripts are never text.
turndown.addRule('dropped', {
  filter: ['img', 'picture', 'svg' as 'img', 'video', 'audio', 'iframe', 'object', 'embed', 'canvas', 'form', 'button', 'script', 'style', 'noscript', 'template'],
  replacement: () => '',
});
// The text as the page wrote it, without Markdown escapes: a model reads it (fewer tokens), and the
// engine's checks on tool results (tags defused, calls copied from a result refused) see the page's
// own characters, not "\[TOOL:create\_draft\]".
turndown.escape = (text: string) => text;
// A link whose target is a script or a page fragment is only its words.
turndown.addRule('plainLinks', {
  filter: (node) => node.nodeName === 'A' && !/^https?:/i.test(node.getAttribute('href') ?? ''),
  replacement: (content) => content,
});

/** Blank-line runs and trailing spaces Turndown leaves, gone. */
function tidy(markdown: string): string {
  return markdown
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function extractHtml(html: string, address: string): ExtractedPage {
  // A bare fragment (no <html>) gets a document around it: linkedom gives it no body otherwise.
  const { document } = parseHTML(/<html[\s>]/i.test(html.slice(0, 8192)) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`);
  // Relative links are made absolute against the page's own address (a <base> the page has wins).
  if (!document.querySelector('base[href]')) {
    const base = document.createElement('base');
    base.setAttribute('href', address);
    document.head?.prepend(base);
  }
  for (const link of document.querySelectorAll('a[href]')) {
    try {
      link.setAttribute('href', new URL(link.getAttribute('href') ?? '', address).href);
    } catch {
      link.removeAttribute('href');
    }
  }
  const pageTitle = document.querySelector('title')?.textContent?.trim() ?? '';
  const article = new Readability(document as unknown as Document, { maxElemsToParse: 50_000, charThreshold: 200 }).parse();
  if (article?.content) {
    return { title: (article.title ?? pageTitle).trim(), markdown: tidy(turndown.turndown(article.content)) };
  }
  // No article found (a short page, a list): the body without its navigation.
  const body = document.body;
  for (const clutter of body?.querySelectorAll('nav, header, footer, aside, script, style, noscript, template, form') ?? []) clutter.remove();
  return { title: pageTitle, markdown: tidy(turndown.turndown(body?.innerHTML ?? '')) };
}
