import { createRequire } from 'node:module';
import type { HLJSApi } from 'highlight.js';
import { Marked } from 'marked';
import { markedHighlight } from 'marked-highlight';
import type sanitizeHtml from 'sanitize-html';
import { splitMarkdownBlocks } from './markdown-blocks.js';

/*
 * highlight.js (its 35 common grammars) and sanitize-html (with postcss and htmlparser2) are about
 * 5 MB of memory and 0.2 s to load: required on first use, so the server starts without them and
 * a reply without code never loads the grammars. Both are CommonJS, so a synchronous require
 * does it and rendering stays synchronous.
 */
const require = createRequire(import.meta.url);
let highlightLibrary: HLJSApi | undefined;
const highlighter = (): HLJSApi => (highlightLibrary ??= require('highlight.js/lib/common') as HLJSApi);
let sanitizeLibrary: typeof sanitizeHtml | undefined;
const sanitizer = (): typeof sanitizeHtml => (sanitizeLibrary ??= require('sanitize-html') as typeof sanitizeHtml);

/** Loads both libraries now: the render worker does it before it says it is ready, so no reply's time limit pays for it. */
export function loadRenderingLibraries(): void {
  highlighter();
  sanitizer();
}

/*
 * Model output is untrusted. Markdown is rendered by marked, then everything goes through
 * sanitize-html with an allow-list: no raw HTML, no attributes beyond href/title/class, no
 * hx-* or on* attributes, and links only to http(s) and mailto. Images become plain links,
 * because a remote image fetched on render can leak conversation text through its URL.
 */

/*
 * Rendering runs in one synchronous piece when a reply ends, so its cost is bounded whatever the
 * model wrote (small models loop): past `plainTextFrom` characters a reply is shown as plain text,
 * and highlighting has a budget per reply. Guessing a block's language (highlightAuto) tries every
 * grammar, so only a few small blocks get it; the rest are shown unhighlighted.
 */
export const plainTextFrom = 64 * 1024;
const highlightBudgetCharacters = 48 * 1024;
const autoDetectMaximumCharacters = 2048;
const autoDetectMaximumBlocks = 8;

/** What highlighting a reply may still spend: one budget per reply, carried from block to block. */
export interface HighlightBudget {
  characters: number;
  autoDetections: number;
}
export const newHighlightBudget = (): HighlightBudget => ({ characters: highlightBudgetCharacters, autoDetections: 0 });
let highlightBudget = newHighlightBudget();

function highlightCode(code: string, language: string): string {
  const highlight = highlighter();
  const known = language && highlight.getLanguage(language) ? language : undefined;
  if (code.length > highlightBudget.characters) return code;
  if (!known && (code.length > autoDetectMaximumCharacters || highlightBudget.autoDetections >= autoDetectMaximumBlocks)) return code;
  highlightBudget.characters -= code.length;
  if (known) return highlight.highlight(code, { language: known }).value;
  highlightBudget.autoDetections += 1;
  return highlight.highlightAuto(code).value;
}

const marked = new Marked(
  { gfm: true, breaks: true },
  // Returning the code unchanged makes marked escape it: an unhighlighted block.
  markedHighlight({ emptyLangClass: 'hljs', langPrefix: 'hljs language-', highlight: highlightCode }),
  {
    renderer: {
      // Raw HTML in model output is shown as the text it is, never parsed.
      html({ text }) {
        return escapeText(text);
      },
      image({ href, text }) {
        return `<a href="${escapeAttribute(href)}">${escapeText(text || href)}</a>`;
      },
    },
  },
);

const sanitizeOptions: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'del', 's', 'code', 'pre', 'blockquote',
    'ul', 'ol', 'li', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'input', 'sup', 'sub',
  ],
  allowedAttributes: {
    a: ['href', 'title'],
    code: ['class'],
    span: ['class'],
    th: ['align'],
    td: ['align'],
    ol: ['start'],
    input: ['type', 'checked', 'disabled'],
  },
  allowedClasses: {
    code: ['hljs', 'language-*'],
    span: ['hljs-*', 'language-*'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'escape',
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
  transformTags: {
    a: (tagName, attributes) => ({
      tagName,
      attribs: { ...attributes, target: '_blank', rel: 'noopener noreferrer nofollow' },
    }),
    input: (tagName, attributes) => ({ tagName, attribs: { ...attributes, disabled: '' } }),
  },
};
sanitizeOptions.allowedAttributes = { ...sanitizeOptions.allowedAttributes, a: ['href', 'title', 'target', 'rel'] };

export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Most of a plain-text reply the page shows; the whole text stays saved (and in exports). */
export const plainTextShown = 64 * 1024;

/** The text as it is, escaped: for replies too long or too unusual to format. */
export function plainTextHtml(text: string, part: 'reply' | 'rest' = 'reply'): string {
  const shown = text.length > plainTextShown ? text.slice(0, plainTextShown) : text;
  const rest = text.length - shown.length;
  const what = part === 'reply' ? 'This reply is' : 'The rest of this reply is';
  const note = rest > 0
    ? `${what} shown as plain text, and only its first ${plainTextShown.toLocaleString('en')} characters: ${rest.toLocaleString('en')} more are saved with the conversation.`
    : `${what} shown as plain text: it was too long or too unusual to format.`;
  return `<p class="markdown-plain-note">${note}</p><div class="markdown-plain">${escapeText(shown)}</div>`;
}

/** One block that could not be formatted (too slow, too deep): its text as it is. */
export const plainBlockHtml = (text: string): string => `<div class="markdown-plain">${escapeText(text.trim())}</div>\n`;

/**
 * Each code block gets a bar above it: its language (from CSS, data-language) and a Copy button
 * that the page's one delegated click handler serves; the block takes keyboard focus, as it may
 * scroll sideways on a phone. Runs on sanitized HTML (a stored reply from an older renderer
 * too), where `<pre><code` and `</code></pre>` can only be the renderer's own tags; a language
 * that is not a plain name gets no label.
 */
export function addCodeBars(html: string): string {
  return html
    .replace(/<pre><code(?: class="hljs(?: language-([\w+#.-]{1,20}))?")?/g, (tag, language: string | undefined) => {
      const labelled = language ? ` data-language="${language}"` : '';
      const label = language ? `Copy ${language} code` : 'Copy code';
      const bar = `<div class="code-block"><div class="code-block-bar"${labelled}><button class="button code-copy" type="button" aria-label="${label}"></button></div>`;
      return `${bar}${tag.replace('<pre>', '<pre tabindex="0">')}`;
    })
    .replace(/<\/code><\/pre>/g, '</code></pre></div>');
}

/**
 * Finished blocks of one reply (markdown-blocks.ts), each rendered on its own and sanitized, with
 * the reply's highlighting budget: a streamed reply renders each block once, as it closes, and
 * the HTML is the same as the whole reply's. A block that fails is shown as its text.
 */
export function renderMarkdownBlocks(blocks: readonly string[], budget: HighlightBudget): string {
  highlightBudget = budget;
  let html = '';
  for (const block of blocks) {
    try {
      html += addCodeBars(sanitizer()(marked.parse(block, { async: false }), sanitizeOptions));
    } catch {
      html += plainBlockHtml(block); // marked overflows its stack on some nesting
    }
  }
  return html;
}

/**
 * Markdown from the model (or any untrusted source) to HTML that is safe to place in the page:
 * its blocks in order, as a stream of it is rendered, and past `maximumLength` characters the
 * rest as plain text. Replies are rendered in a worker with a time limit (markdown-renderer.ts);
 * this runs there, and directly only for short text.
 */
export function renderMarkdown(markdown: string, maximumLength = plainTextFrom): string {
  const budget = newHighlightBudget();
  const blocks: string[] = [];
  let length = 0;
  for (const block of splitMarkdownBlocks(markdown)) {
    // Blocks are in order; blank lines between them belong to neither.
    const end = markdown.indexOf(block, length) + block.length;
    if (end > maximumLength) break;
    blocks.push(block);
    length = end;
  }
  if (blocks.length === 0 && markdown.trim()) return plainTextHtml(markdown);
  const html = renderMarkdownBlocks(blocks, budget);
  const rest = markdown.slice(length);
  return rest.trim() ? html + plainTextHtml(rest, 'rest') : html;
}
