import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdownRendererVersion } from '../../../../src/engine/markdown/markdown-renderer.js';
import { keepMatchInView, toMessageView } from '../../../../src/web/chat/chat-view.js';
import type { StoredMessage } from '../../../../src/storage/conversation-store.js';

test('a snippet is cut before its first match only when the match would sit past the start', () => {
  assert.equal(keepMatchInView('short \u0001hit\u0002 text'), 'short \u0001hit\u0002 text');
  assert.equal(keepMatchInView(`…${'a'.repeat(100)} b c d e f g h i j k \u0001hit\u0002`), '…b c d e f g h i j k \u0001hit\u0002');
  // One long word before the match: cut right at the match.
  assert.equal(keepMatchInView(`${'x'.repeat(100)}\u0001hit\u0002 after`), '…\u0001hit\u0002 after');
});

test('a reply stored by the renderer before code bars gets them without being rendered again, however long it is', () => {
  const long = 'word '.repeat(2000);
  const stored = (html: string, htmlVersion: number) => ({
    id: 7, conversationId: 1, role: 'assistant', content: `${long}\n\n\`\`\`js\nx\n\`\`\``, thinking: '', html, htmlVersion, status: 'complete', createdAt: 0,
  }) as unknown as StoredMessage;
  const version1 = `<p>${long}</p>\n<pre><code class="hljs language-js">x\n</code></pre>\n`;
  const upgraded = toMessageView(stored(version1, 1)).html;
  assert.match(upgraded, /^<p>word word/, 'still the stored HTML, not plain text');
  assert.match(upgraded, /<div class="code-block"><div class="code-block-bar" data-language="js"><button class="button code-copy"[^>]*><\/button><\/div><pre tabindex="0"><code class="hljs language-js">x\n<\/code><\/pre><\/div>/);
  assert.equal(toMessageView(stored('<p>current</p>', markdownRendererVersion)).html, '<p>current</p>');
});
