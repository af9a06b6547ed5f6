import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blindModelNames, pickerRefusal, seeingModel } from '../../../../src/providers/photos/vision-models.js';

test('the one-tap switch goes to the first model that can see, named as a person says it', () => {
  assert.deepEqual(seeingModel([{ value: 'llama3.2:latest' }, { value: 'llava:latest', vision: true }, { value: 'gemma3:4b', vision: true }]), {
    value: 'llava:latest',
    name: 'llava',
  });
  assert.equal(seeingModel([{ value: 'llama3.2:latest' }]), undefined);
});

test('with the abilities not known in time, the page is given no refusal: the server decides at send', () => {
  assert.equal(pickerRefusal([{ value: 'llama3.2:latest' }, { value: 'llava:latest', vision: true }], false), '');
  assert.equal(pickerRefusal([{ value: 'llama3.2:latest' }, { value: 'llava:latest', vision: true }], true), '{model} cannot see photos. Models here that can: llava');
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
