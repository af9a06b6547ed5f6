import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanTitle } from '../../../src/replies/chat-titles.js';

test('a model\'s title is cleaned to one line of plain words, at most six', () => {
  const cases: Array<[string, string]> = [
    ['"Bread rising in a cold kitchen."', 'Bread rising in a cold kitchen'],
    ['**Weekend Trip Plan**', 'Weekend Trip Plan'],
    ['# Title: Garden planning\nThis covers…', 'Garden planning'],
    ['“Taxes for freelancers”', 'Taxes for freelancers'],
    ['<think>The user asks about bees.</think>\nBees and honey', 'Bees and honey'],
    ['<think>still thinking when the cap was reached', ''],
    ['<img src=x onerror=alert(1)>Garden plans', 'Garden plans'],
    ['<script>alert(1)</script>', 'alert(1)'],
    ['- `npm` install trouble', 'npm install trouble'],
    ['[Recipe ideas](javascript:alert(1))', 'Recipe ideas'],
    ['One two three four five six seven eight', 'One two three four five six'],
    ["'Don't forget the milk'", "Don't forget the milk"],
    ['Is Pluto a planet?', 'Is Pluto a planet?'],
    ['\n\n   \n', ''],
    ['Zero\u200bwidth\u202eand controls\u0007', 'Zerowidthand controls'],
  ];
  for (const [raw, expected] of cases) assert.equal(cleanTitle(raw), expected, `from ${JSON.stringify(raw)}`);
});

test('a title without spaces is cut to 60 characters', () => {
  assert.equal([...cleanTitle('x'.repeat(500))].length, 60);
  assert.ok([...cleanTitle(`${'longword'.repeat(5)} ${'another'.repeat(5)} end`)].length <= 60);
});
