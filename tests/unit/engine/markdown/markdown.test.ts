import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMarkdownRenderer } from '../../../../src/engine/markdown/markdown-renderer.js';
import { renderMarkdown } from '../../../../src/engine/markdown/render-markdown.js';
import { fitToContext, estimateTokens } from '../../../../src/engine/llm/history.js';

test('Markdown renders lists, tables, highlighted code and safe links', () => {
  const html = renderMarkdown('- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```js\nconst a = 1;\n```\n\n[site](https://example.com)');
  assert.match(html, /<ul>\s*<li>a<\/li>/);
  assert.match(html, /<table>[\s\S]*<td>1<\/td>/);
  assert.match(html, /<pre tabindex="0"><code class="hljs language-js"><span class="hljs-keyword">const<\/span>/);
  assert.match(html, /<a href="https:\/\/example.com" target="_blank" rel="noopener noreferrer nofollow">site<\/a>/);
});

test('a code block comes in a bar with its language and a Copy button, and takes keyboard focus; the text is unchanged', () => {
  const html = renderMarkdown('Two blocks:\n\n```python\nprint("a < b")\n```\n\n    indented\n\nand `inline` code.');
  const bar = (language: string, label: string) =>
    `<div class="code-block"><div class="code-block-bar"${language}><button class="button code-copy" type="button" aria-label="${label}"></button></div><pre tabindex="0"><code class="hljs`;
  assert.ok(html.includes(bar(' data-language="python"', 'Copy python code') + ' language-python">'), html);
  assert.ok(html.includes(bar('', 'Copy code') + '">'), 'a block without a language still gets its button');
  assert.equal(html.match(/<\/pre><\/div>/g)?.length, 2, 'each bar closes after its block');
  assert.match(html, /<code>inline<\/code>/, 'inline code gets no bar');
  assert.equal(html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim(), 'Two blocks: print("a &lt; b") indented and inline code.', 'the bar adds no text');
  // A language that is not a plain name gets no label from the model's words.
  assert.doesNotMatch(renderMarkdown('```x"><img src=x onerror=alert(1)>\nhi\n```'), /<img|data-language="x"|onerror=/);
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

test('replies are rendered in a worker with a time limit: pathological Markdown falls back to plain text and never blocks the server', async (t) => {
  const renderer = createMarkdownRenderer({ timeoutMs: 300 });
  t.after(() => renderer.close());
  assert.equal(await renderer.render('**bold** <script>x</script>'), '<p><strong>bold</strong> &lt;script&gt;x&lt;/script&gt;</p>\n');

  // Emphasis runs cost marked quadratic time; the main thread keeps ticking meanwhile.
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  const quadratic = await renderer.render('_a'.repeat(32 * 1024));
  clearInterval(ticker);
  assert.match(quadratic, /^<p class="markdown-plain-note">/);
  // Rendered on this thread, the render would end before any tick could run; a busy machine gives
  // few ticks (8 of the usual 30 seen under load), so one is the proof.
  assert.ok(ticks >= 1, `the event loop ran ${ticks} times during the render`);

  // Deep nesting overflows marked's stack: plain text, and the next render still works.
  assert.match(await renderer.render('> '.repeat(20_000)), /class="markdown-plain"/);
  assert.equal(await renderer.render('*again*'), '<p><em>again</em></p>\n');
});

test('direct rendering is capped and never throws: long or overflowing input becomes escaped plain text', () => {
  assert.match(renderMarkdown('> '.repeat(20_000)), /class="markdown-plain">&gt; &gt; /);
  assert.match(renderMarkdown('x'.repeat(5000), 4096), /^<p class="markdown-plain-note">/);
  assert.match(renderMarkdown('<img src=x onerror=alert(1)>'.repeat(3000)), /&lt;img src=x onerror=alert\(1\)&gt;/);
});

test('highlighting has a budget: a reply full of code fences renders quickly, unhighlighted past the budget', () => {
  // CPU time, not wall time: other work on a busy machine stretches the wall clock (it failed at
  // 2 s with the load average at 12), not the CPU this render takes.
  const started = process.cpuUsage();
  const html = renderMarkdown('```\nlet x = 1;\n```\n'.repeat(3000));
  const { user, system } = process.cpuUsage(started);
  assert.ok((user + system) / 1000 < 2000, 'bounded (was tens of seconds with language guessing on every block)');
  const guessed = (html.match(/<code class="hljs"><span class="hljs-/g) ?? []).length;
  assert.ok(guessed > 0 && guessed <= 8, `the language was guessed for ${guessed} of 3000 blocks`);
});

test('a huge reply is shown as its first 64 KB of plain text, with the size of the rest', () => {
  const html = renderMarkdown('<'.repeat(1024 * 1024));
  assert.match(html, /only its first 65,536 characters: 983,040 more are saved with the conversation/);
  assert.ok(html.length < 300 * 1024, `${html.length} characters of HTML`);
});
