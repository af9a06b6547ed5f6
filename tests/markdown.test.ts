import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderMarkdown } from '../src/markdown/render-markdown.js';
import { fitToContext, estimateTokens } from '../src/llm/history.js';

test('Markdown renders lists, tables, highlighted code and safe links', () => {
  const html = renderMarkdown('- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```js\nconst a = 1;\n```\n\n[site](https://example.com)');
  assert.match(html, /<ul>\s*<li>a<\/li>/);
  assert.match(html, /<table>[\s\S]*<td>1<\/td>/);
  assert.match(html, /<pre><code class="hljs language-js"><span class="hljs-keyword">const<\/span>/);
  assert.match(html, /<a href="https:\/\/example.com" target="_blank" rel="noopener noreferrer nofollow">site<\/a>/);
});

test('raw HTML, script, event handlers, htmx attributes and javascript: links never survive', () => {
  const html = renderMarkdown(
    '<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n<div hx-get="/logout" hx-trigger="load">x</div>\n\n[x](javascript:alert(1)) [y](JAVASCRIPT:alert(1)) [z](data:text/html,hi)',
  );
  assert.doesNotMatch(html, /<script|<img|<div|href="javascript|href="data/i);
  assert.doesNotMatch(html, /<[a-z][^>]*\s(on\w+|hx-[\w-]+|data-hx-[\w-]+)=/i, 'no live attribute on any element');
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'raw HTML is shown as text');
});

test('images become links, so rendering a reply never fetches a remote URL', () => {
  const html = renderMarkdown('![chart](https://tracker.example/p.png?secret=1)');
  assert.doesNotMatch(html, /<img/);
  assert.match(html, /<a href="https:\/\/tracker.example\/p.png\?secret=1"/);
});

test('history is trimmed from the oldest turn to fit the context window', () => {
  const system = { role: 'system' as const, content: 'system prompt' };
  const turns = Array.from({ length: 40 }, (_, index) => ({
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `turn ${index} ` + 'word '.repeat(200),
  }));
  const fitted = fitToContext(system, turns, 4096, 1024);
  const used = fitted.reduce((sum, turn) => sum + estimateTokens(turn.content), 0);
  assert.ok(used <= 4096 - 1024, `fits: ${used}`);
  assert.equal(fitted[0], system);
  assert.equal(fitted.at(-1)!.content, turns.at(-1)!.content, 'the newest turn is kept');
  assert.equal(fitted[1]!.role, 'user', 'the kept history starts with a user turn');
  assert.ok(fitted.length < turns.length + 1);
});

test('a single message longer than the context is cut, not dropped', () => {
  const system = { role: 'system' as const, content: 's' };
  const fitted = fitToContext(system, [{ role: 'user', content: 'x'.repeat(100_000) + 'END' }], 2048, 512);
  assert.equal(fitted.length, 2);
  assert.ok(fitted[1]!.content.endsWith('END'));
  assert.ok(fitted[1]!.content.length < 100_000);
});
