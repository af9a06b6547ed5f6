import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markSearchWords } from '../../../../src/web/chat/search-marks.js';

const mark = (word: string) => `<mark class="search-mark">${word}</mark>`;

test('the searched words are marked as the search matched them: word starts, any case, any script, in text only', () => {
  assert.equal(
    markSearchWords('pack the Snorkelling gear and the snorkels, then &lt;b&gt;leave&lt;/b&gt;.', 'snorkel'),
    `pack the ${mark('Snorkelling')} gear and the ${mark('snorkels')}, then &lt;b&gt;leave&lt;/b&gt;.`,
  );
  assert.equal(markSearchWords('<p>Ünïcode café <a href="/café">café</a></p>', 'CAFÉ'), `<p>Ünïcode ${mark('café')} <a href="/café">${mark('café')}</a></p>`, 'never inside a tag');
  assert.equal(markSearchWords('a &amp; b', 'amp'), 'a &amp; b', 'entities stay whole');
  assert.equal(markSearchWords('undo do', 'do'), `undo ${mark('do')}`, 'only at the start of a word');
  assert.equal(markSearchWords('a.b (c)', '.* ( )'), 'a.b (c)', 'no words: nothing marked, and the query is never a pattern');
});
