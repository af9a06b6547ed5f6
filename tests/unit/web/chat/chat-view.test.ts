import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepMatchInView } from '../../../../src/web/chat/chat-view.js';

test('a snippet is cut before its first match only when the match would sit past the start', () => {
  assert.equal(keepMatchInView('short \u0001hit\u0002 text'), 'short \u0001hit\u0002 text');
  assert.equal(keepMatchInView(`…${'a'.repeat(100)} b c d e f g h i j k \u0001hit\u0002`), '…b c d e f g h i j k \u0001hit\u0002');
  // One long word before the match: cut right at the match.
  assert.equal(keepMatchInView(`${'x'.repeat(100)}\u0001hit\u0002 after`), '…\u0001hit\u0002 after');
});
