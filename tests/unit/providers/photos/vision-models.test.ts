import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blindModelNames, markVisionOptions, type VisionModels } from '../../../../src/providers/photos/vision-models.js';

test('a model server slow to describe its models does not hold the chat page; the server decides at send', async () => {
  const never: VisionModels = { canSee: () => new Promise(() => {}), among: () => new Promise(() => {}), refusal: async () => '' };
  const groups = [{ options: [{ value: 'llava:latest' as string, vision: undefined as boolean | undefined }] }];
  const started = Date.now();
  assert.equal(await markVisionOptions(groups, never, 50), '');
  assert.ok(Date.now() - started < 1000);
  assert.equal(groups[0]!.options[0]!.vision, undefined);
});

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
