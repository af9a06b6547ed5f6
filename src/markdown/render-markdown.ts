import { Marked } from 'marked';
import { markedHighlight } from 'marked-highlight';
import highlight from 'highlight.js/lib/common';
import sanitizeHtml from 'sanitize-html';

/*
 * Model output is untrusted. Markdown is rendered by marked, then everything goes through
 * sanitize-html with an allow-list: no raw HTML, no attributes beyond href/title/class, no
 * hx-* or on* attributes, and links only to http(s) and mailto. Images become plain links,
 * because a remote image fetched on render can leak conversation text through its URL.
 */

const marked = new Marked(
  { gfm: true, breaks: true },
  markedHighlight({
    emptyLangClass: 'hljs',
    langPrefix: 'hljs language-',
    highlight(code, language) {
      const known = language && highlight.getLanguage(language) ? language : undefined;
      return known ? highlight.highlight(code, { language: known }).value : highlight.highlightAuto(code).value;
    },
  }),
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

/** Markdown from the model (or any untrusted source) to HTML that is safe to place in the page. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false });
  return sanitizeHtml(html, sanitizeOptions);
}
