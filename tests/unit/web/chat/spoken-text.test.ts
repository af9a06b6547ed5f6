import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spokenText } from '../../../../src/web/chat/chat-view.js';

test('a finished reply is said as its words: inline tags join, blocks and cells stay apart, entities stay escaped', () => {
  assert.equal(spokenText('<p>Short and <strong>done</strong>.</p>', 2000), 'Short and done.');
  assert.equal(spokenText('<p>One</p><ul><li>a</li><li>b</li></ul><table><tr><td>1</td><td>2</td></tr></table>', 2000), 'One a b 1 2');
  assert.equal(spokenText('<p>Fish &amp; chips</p>', 2000), 'Fish &amp; chips');
  assert.equal(spokenText('<p>Fish &amp; chips</p>', 6), 'Fish', 'a cut never leaves half an entity');
});
