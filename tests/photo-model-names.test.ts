import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blindModelNames } from '../src/providers/photos/vision-models.js';

test('the page is given the short name of each model that cannot see, as the server says it', () => {
  const groups = [
    { options: [{ value: 'llama3.2:latest' }, { value: 'llava:latest', vision: true }] },
    { options: [{ value: '@work/qwen2.5:7b' }, { value: '@work/mistral:latest' }] },
  ];
  assert.deepEqual(blindModelNames(groups), {
    'llama3.2:latest': 'llama3.2',
    '@work/qwen2.5:7b': 'qwen2.5:7b',
    '@work/mistral:latest': 'mistral',
  });
});
