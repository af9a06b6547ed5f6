import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MarkdownBlockSplitter, splitMarkdownBlocks } from '../../../../src/engine/markdown/markdown-blocks.js';
import { newHighlightBudget, renderMarkdown, renderMarkdownBlocks } from '../../../../src/engine/markdown/render-markdown.js';
import { StreamingMarkdown } from '../../../../src/engine/markdown/streaming-markdown.js';

const reply = [
  'Here is **a plan**.',
  'First:\n\n- a\n- b\n\n- c, a loose item\n\n  more of c',
  '| A | B |\n|---|---|\n| 1 | 2 |',
  '```js\nconst x = 1;\n\nconst y = 2;\n```\nAfter the fence.',
  '1. one\n2. two\n\n3. three',
  '    indented code\n\n    still code',
  'The end.',
].join('\n\n');

/** The blocks a stream of `text` in pieces of `size` characters finishes, in order. */
function streamed(text: string, size: number): string[] {
  const splitter = new MarkdownBlockSplitter();
  const blocks: string[] = [];
  const ends: number[] = [];
  for (let index = 0; index < text.length; index += size) blocks.push(...splitter.push(text.slice(index, index + size)).map(keep));
  return [...blocks, ...splitter.finish().map(keep)];

  // Each block says where it ends; the text before that end is the blocks so far and the blank lines between them.
  function keep(block: { text: string; end: number }): string {
    assert.ok(text.slice(0, block.end).endsWith(block.text) && block.end > (ends.at(-1) ?? -1));
    ends.push(block.end);
    return block.text;
  }
}

test('a reply is cut into its top-level blocks: a loose list, a fence with blank lines and indented lines stay whole', () => {
  assert.deepEqual(splitMarkdownBlocks(reply).map((block) => block.trim()), [
    'Here is **a plan**.',
    'First:',
    '- a\n- b\n\n- c, a loose item\n\n  more of c',
    '| A | B |\n|---|---|\n| 1 | 2 |',
    '```js\nconst x = 1;\n\nconst y = 2;\n```',
    'After the fence.',
    // Indented lines after a list belong to its last item.
    '1. one\n2. two\n\n3. three\n\n    indented code\n\n    still code',
    'The end.',
  ]);
});

test('however the text arrives, the blocks are the same, and rendered one by one they are the whole reply rendered', () => {
  const whole = splitMarkdownBlocks(reply);
  for (const size of [1, 2, 3, 5, 8, 13, 64]) assert.deepEqual(streamed(reply, size), whole, `in pieces of ${size}`);
  assert.equal(renderMarkdownBlocks(whole, newHighlightBudget()), renderMarkdown(reply));
  assert.match(renderMarkdown(reply), /<li><p>c, a loose item<\/p>\n<p>more of c<\/p>/);
});

test('a streaming reply renders each block once, and its final HTML begins with what was shown', async () => {
  const rendered: string[][] = [];
  const renderer = {
    renderBlocks: async (blocks: string[], budget: ReturnType<typeof newHighlightBudget>) => {
      rendered.push(blocks);
      return { html: renderMarkdownBlocks(blocks, budget), budget };
    },
  };
  const shown: string[] = [];
  const formatter = new StreamingMarkdown(renderer, (html) => shown.push(html));
  for (let index = 0; index < reply.length; index += 3) {
    formatter.push(reply.slice(index, index + 3));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const html = await formatter.finish();
  assert.equal(html, renderMarkdown(reply));
  assert.ok(html.startsWith(shown.join('')) && shown.length >= 5, `${shown.length} blocks shown before the end`);
  assert.deepEqual(rendered.flat(), splitMarkdownBlocks(reply), 'each block rendered once, in order');
});

// Linear in the reply's size: a long line, a long fence and many blocks, streamed in small
// chunks. The splitter keeps only the open block, so this takes well under a second; a splitter
// that re-read or copied the whole text per chunk or line would take hours and hit the time-out.
test('splitting a long reply in small chunks gives the same blocks as the whole text', { timeout: 60_000 }, () => {
  for (const [reply, size] of [
    ['x'.repeat(1_000_000), 3],
    [`\`\`\`\n${'line\n\n'.repeat(100_000)}`, 5],
    ['para\n\n'.repeat(100_000), 7],
    [`- item\n\n  more\n${'- next\n'.repeat(50_000)}`, 4],
  ] as const) {
    assert.deepEqual(streamed(reply, size), splitMarkdownBlocks(reply));
  }
});
