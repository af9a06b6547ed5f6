import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../../src/config/config.js';
import type { ChatModel } from '../../../../src/engine/llm/chat-model.js';
import { readOllamaToolCalls, toOllamaMessage } from '../../../../src/engine/llm/ollama-chat-model.js';
import { ToolCallJoiner } from '../../../../src/engine/llm/openai-tool-calls.js';
import { toolCallModeOf, withToolCallModes } from '../../../../src/engine/llm/tool-call-mode.js';

test('Ollama tool_calls: object arguments become JSON text, in order; calls without a name are dropped', () => {
  assert.deepEqual(
    readOllamaToolCalls([
      { function: { name: 'calculator', arguments: { expression: '6 * 7' } } },
      { id: 'call_1', function: { index: 1, name: 'current_time', arguments: {} } },
      { function: { arguments: { x: 1 } } },
      'nonsense',
    ]),
    [
      { name: 'calculator', arguments: '{"expression":"6 * 7"}' },
      { id: 'call_1', name: 'current_time', arguments: '{}' },
    ],
  );
  assert.deepEqual(readOllamaToolCalls(undefined), []);
});

test('a turn on Ollama\'s wire: native calls with object arguments, a tool result with tool_name', () => {
  assert.deepEqual(toOllamaMessage({ role: 'assistant', content: 'Working.', toolCalls: [{ id: 'call_3', name: 'calculator', arguments: '{"expression":"1+1"}' }] }), {
    role: 'assistant',
    content: 'Working.',
    tool_calls: [{ function: { name: 'calculator', arguments: { expression: '1+1' } } }],
  });
  // Arguments that never parsed (already answered with an error) go as an empty object.
  assert.deepEqual(toOllamaMessage({ role: 'assistant', content: '', toolCalls: [{ name: 'x', arguments: '{oops' }] }).tool_calls, [{ function: { name: 'x', arguments: {} } }]);
  assert.deepEqual(toOllamaMessage({ role: 'tool', content: '2', toolName: 'calculator', toolCallId: 'call_3' }), { role: 'tool', content: '2', tool_name: 'calculator' });
});

test('OpenAI fragments are joined by index, whatever order they interleave in', () => {
  const joiner = new ToolCallJoiner();
  joiner.push([{ index: 0, id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '' } }]);
  joiner.push([{ index: 0, function: { arguments: '{"expre' } }]);
  joiner.push([{ index: 1, id: 'call_b', type: 'function', function: { name: 'current_time', arguments: '{"time' } }]);
  joiner.push([{ index: 0, function: { arguments: 'ssion": "6 * 7"}' } }]);
  joiner.push([{ index: 1, function: { arguments: 'zone": "UTC"}' } }]);
  joiner.push(null);
  assert.deepEqual(joiner.finish(), [
    { id: 'call_a', name: 'calculator', arguments: '{"expression": "6 * 7"}' },
    { id: 'call_b', name: 'current_time', arguments: '{"timezone": "UTC"}' },
  ]);
});

test('a fragment without an index continues the last call; a call with no arguments reads as {}', () => {
  const joiner = new ToolCallJoiner();
  joiner.push([{ id: 'call_x', function: { name: 'list_email_accounts' } }]);
  joiner.push([{ index: 1, function: { name: 'calculator', arguments: '{"expression":' } }]);
  joiner.push([{ function: { arguments: ' "2+2"}' } }]);
  assert.deepEqual(joiner.finish(), [
    { id: 'call_x', name: 'list_email_accounts', arguments: '{}' },
    { name: 'calculator', arguments: '{"expression": "2+2"}' },
  ]);
});

test('joining is bounded: at most 64 calls, arguments cut at 64 KB', () => {
  const joiner = new ToolCallJoiner();
  for (let index = 0; index < 100; index += 1) joiner.push([{ index, function: { name: `t${index}`, arguments: '{}' } }]);
  for (let piece = 0; piece < 100; piece += 1) joiner.push([{ index: 0, function: { arguments: 'x'.repeat(1024) } }]);
  const calls = joiner.finish();
  assert.equal(calls.length, 64);
  assert.equal(calls[0]!.arguments.length, 64 * 1024);
});

test('TOOL_CALLS: auto goes native where the server reports tools; the lists and forced modes win, inline list first', () => {
  const settings = loadConfig({ TOOL_CALLS_NATIVE_MODELS: '@gpu/qwen, both', TOOL_CALLS_INLINE_MODELS: 'broken:latest,both' });
  assert.equal(settings.toolCalls, 'auto');
  assert.equal(toolCallModeOf(settings, 'qwen3:latest', ['completion', 'tools']), 'native');
  assert.equal(toolCallModeOf(settings, 'gemma3:latest', ['completion']), 'inline');
  assert.equal(toolCallModeOf(settings, '@gpu/qwen', ['completion']), 'native', 'an OpenAI-compatible model only when listed');
  assert.equal(toolCallModeOf(settings, 'broken:latest', ['completion', 'tools']), 'inline');
  assert.equal(toolCallModeOf(settings, 'both', ['tools']), 'inline');
  assert.equal(toolCallModeOf(loadConfig({ TOOL_CALLS: 'native' }), '@gpu/any', []), 'native');
  assert.equal(toolCallModeOf(loadConfig({ TOOL_CALLS: 'INLINE' }), 'qwen3', ['tools']), 'inline');
  assert.throws(() => loadConfig({ TOOL_CALLS: 'sometimes' }), /TOOL_CALLS: "sometimes" is not one of auto, native, inline/);
});

test('the chat model with modes: each description says how its model gets tools', async () => {
  const base = { describeModel: async (name: string) => ({ name, capabilities: name.startsWith('q') ? ['tools'] : [], contextLength: undefined }) } as unknown as ChatModel;
  const model = withToolCallModes(base, loadConfig({}));
  assert.equal((await model.describeModel('qwen3')).toolCalls, 'native');
  assert.equal((await model.describeModel('gemma3')).toolCalls, 'inline');
});
