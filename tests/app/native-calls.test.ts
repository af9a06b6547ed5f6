import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { createChatModelFromConfig } from '../../src/engine/llm/chat-model-from-config.js';
import { startOllamaStandin, type RecordedMessage, type ScriptedReply, type StandinToolCall } from '../support/ollama-standin.js';
import { startOpenAiStandin } from '../support/openai-standin.js';
import { startChatHarness } from '../support/test-app.js';
import { FindToolsTool } from '../../src/engine/tools/find-tools-tool.js';
import { Tool } from '../../src/engine/tools/tool.js';
import { createTestRegistry, testToolServices } from '../support/test-tools.js';

/** A chat whose Ollama models report `tools`: with TOOL_CALLS=auto they get their tools natively. */
async function startNativeChat(t: TestContext, environment: Record<string, string> = {}) {
  const services = testToolServices(() => new Date('2026-11-22T10:00:00Z'));
  const { registry, sendNote, waitUntilStopped } = createTestRegistry(services);
  const harness = await startChatHarness(t, { environment: { TOOL_CALLS: 'auto', ...environment }, dependencies: { registry } });
  return { ...harness, sendNote, waitUntilStopped };
}

const call = (name: string, input: Record<string, unknown>): StandinToolCall => ({ function: { name, arguments: input } });
const calls = (content: string, toolCalls: StandinToolCall[], extra: ScriptedReply = {}): ScriptedReply => ({ content, toolCalls, ...extra });
const toolTurns = (messages: RecordedMessage[]) => messages.filter((message) => message.role === 'tool').map((message) => [message.tool_name, message.content]);
const awaitingApproval = (message: Record<string, unknown>) => String(message.content).includes('data-status="awaiting-approval"');

test('one native call: tools go in the request, the call runs, its result comes back as a tool turn with its name', async (t) => {
  const { socket, standin, store, toolCalls, turnFinished } = await startNativeChat(t);
  standin.enqueue(calls('Let me work it out.', [call('calculator', { expression: '6 * 7' })]), { content: 'It is **42**.' });
  socket.send({ type: 'send', message: 'What is 6 times 7?', model: 'llama3.2:latest' });
  await turnFinished();

  const [first, second] = standin.requests;
  const tools = first!.body.tools as Array<{ type: string; function: { name: string; parameters: { required?: string[] } } }>;
  const calculator = tools.find((tool) => tool.function.name === 'calculator');
  assert.equal(calculator?.type, 'function');
  assert.deepEqual(calculator?.function.parameters.required, ['expression'], 'the tool goes with its JSON Schema');
  const system = first!.messages[0]!.content;
  assert.doesNotMatch(system, /\[TOOL:/, 'no [TOOL:] syntax is taught to a native model');
  assert.match(system, /tools given with this request/);

  const assistant = second!.messages.at(-2)!;
  assert.equal(assistant.role, 'assistant');
  assert.equal(assistant.content, 'Let me work it out.');
  assert.deepEqual(assistant.tool_calls, [{ function: { name: 'calculator', arguments: { expression: '6 * 7' } } }]);
  assert.deepEqual(toolTurns(second!.messages), [['calculator', '6 * 7 = 42']]);

  assert.deepEqual(store.listMessages(1).map((message) => message.content), ['What is 6 times 7?', 'Let me work it out.', 'It is **42**.']);
  assert.equal(toolCalls.listForConversation(1)[0]!.status, 'done');
  assert.ok(socket.messages.some((message) => String(message.content).includes('Used the calculator — 6 * 7 = 42')), 'the card is the same as for an inline call');
  for (const message of socket.messages) assert.doesNotMatch(String(message.content ?? ''), /\[TOOL:/, 'no raw call reaches the page');
});

test('two native calls in one message run in order, each result a tool turn of its own', async (t) => {
  const { socket, standin, toolCalls, turnFinished } = await startNativeChat(t);
  standin.enqueue(calls('', [call('calculator', { expression: '1+1' }), call('current_time', { timezone: 'UTC' })]), { content: 'Done.' });
  socket.send({ type: 'send', message: 'Two things', model: 'llama3.2:latest' });
  await turnFinished();
  assert.deepEqual(toolCalls.listForConversation(1).map((stored) => [stored.name, stored.status]), [['calculator', 'done'], ['current_time', 'done']]);
  const turns = toolTurns(standin.requests[1]!.messages);
  assert.equal(turns.length, 2);
  assert.deepEqual(turns[0], ['calculator', '1+1 = 2']);
  assert.equal(turns[1]![0], 'current_time');
  assert.match(turns[1]![1]!, /Sunday, 22 November 2026/);
});

test('a thinking model keeps thinking while it calls natively', async (t) => {
  const { socket, standin, store, turnFinished } = await startNativeChat(t);
  standin.enqueue(calls('', [call('calculator', { expression: '2^10' })], { thinking: 'I should compute this.' }), { content: '1024.', thinking: 'Easy.' });
  socket.send({ type: 'send', message: 'Two to the tenth?', model: 'qwen3:latest' });
  await turnFinished();
  assert.equal(standin.requests[0]!.think, true);
  assert.ok(standin.requests[0]!.body.tools, 'tools and thinking together');
  assert.deepEqual(toolTurns(standin.requests[1]!.messages), [['calculator', '2^10 = 1024']]);
  assert.deepEqual(store.listMessages(1).map((message) => message.thinking), ['', 'I should compute this.', 'Easy.']);
});

test('arguments that fail the schema and an unknown tool go back as failed results the model can act on', async (t) => {
  const { socket, standin, toolCalls, turnFinished } = await startNativeChat(t);
  standin.enqueue(calls('', [call('calculator', { expr: '1+1' }), call('weather', { city: 'Paris' })]), calls('', [call('calculator', { expression: '1+1' })]), { content: '2.' });
  socket.send({ type: 'send', message: 'Go', model: 'llama3.2:latest' });
  await turnFinished();
  const [bad, unknown, retried] = toolCalls.listForConversation(1);
  assert.equal(bad!.status, 'failed');
  assert.equal(unknown!.status, 'failed');
  assert.equal(retried!.status, 'done');
  const turns = toolTurns(standin.requests[1]!.messages);
  assert.match(turns[0]![1]!, /^\(failed\) Not run: the arguments do not fit: must have required property 'expression'; there is no argument "expr"\. calculator takes \{"expression": string \(required\)\}\.$/);
  assert.deepEqual(turns[1]![0], 'weather');
  assert.match(turns[1]![1]!, /^\(failed\) There is no tool named "weather"\. Available tools: calculator, current_time,/);
});

test('a native-mode model that writes its call as text still gets it run: [TOOL:], Hermes tags', async (t) => {
  const { socket, standin, toolCalls, turnFinished } = await startNativeChat(t);
  standin.enqueue({ content: 'Sure. [TOOL:calculator]2+2[/TOOL]' }, { content: '<tool_call>{"name": "current_time", "arguments": {"timezone": "UTC"}}</tool_call>' }, { content: 'Four, at ten.' });
  socket.send({ type: 'send', message: 'Add and tell the time', model: 'llama3.2:latest' });
  await turnFinished();
  assert.deepEqual(toolCalls.listForConversation(1).map((stored) => [stored.name, stored.status]), [['calculator', 'done'], ['current_time', 'done']]);
  // Rendered natively next time: the call as tool_calls (its free text as the tool's one argument), the result as a tool turn.
  const second = standin.requests[1]!.messages;
  assert.equal(second.at(-2)!.content, 'Sure.');
  assert.deepEqual(second.at(-2)!.tool_calls, [{ function: { name: 'calculator', arguments: { expression: '2+2' } } }]);
  assert.deepEqual(toolTurns(second), [['calculator', '2+2 = 4']]);
});

test('approval in native mode: the card waits, approve runs it; deny goes back as the result', async (t) => {
  const { socket, standin, sendNote, toolCalls, turnFinished } = await startNativeChat(t);
  standin.enqueue(calls('', [call('send_note', { text: 'buy milk' })]), { content: 'Sent.' });
  socket.send({ type: 'send', message: 'Send a note', model: 'llama3.2:latest' });
  await socket.waitFor(awaitingApproval);
  assert.deepEqual(sendNote.sent, [], 'nothing happens before approval');
  socket.send({ type: 'approval', toolCallId: String(toolCalls.listForConversation(1)[0]!.id), decision: 'approve' });
  await turnFinished();
  assert.deepEqual(sendNote.sent, ['{"text":"buy milk"}']);

  socket.messages.length = 0;
  standin.enqueue(calls('', [call('send_note', { text: 'two' })]), { content: 'Not sent.' });
  socket.send({ type: 'send', message: 'Send another', conversationId: '1' });
  await socket.waitFor(awaitingApproval);
  socket.send({ type: 'approval', toolCallId: String(toolCalls.listForConversation(1).at(-1)!.id), decision: 'deny' });
  await turnFinished();
  assert.equal(sendNote.sent.length, 1);
  assert.match(toolTurns(standin.requests.at(-1)!.messages).at(-1)![1]!, /^\(denied\) The person denied this action/);
});

test('Stop in native mode while a card waits: the call is denied and the reply ends stopped', async (t) => {
  const { socket, standin, sendNote, toolCalls, store, turnFinished } = await startNativeChat(t);
  standin.enqueue(calls('I will send it.', [call('send_note', { text: 'x' })]));
  socket.send({ type: 'send', message: 'Send', model: 'llama3.2:latest' });
  await socket.waitFor(awaitingApproval);
  socket.send({ type: 'stop', conversationId: '1' });
  await turnFinished();
  assert.deepEqual(sendNote.sent, []);
  assert.equal(toolCalls.listForConversation(1)[0]!.status, 'denied');
  assert.equal(store.getMessage(2)!.status, 'stopped');
  assert.equal(standin.requests.length, 1, 'the model is not asked again after Stop');

  // The next turn still sees the stopped call and its result, in native form.
  socket.messages.length = 0;
  standin.enqueue({ content: 'Fine.' });
  socket.send({ type: 'send', message: 'Never mind', conversationId: '1' });
  await turnFinished();
  const messages = standin.requests[1]!.messages;
  assert.deepEqual(messages.slice(1).map((message) => message.role), ['user', 'assistant', 'tool', 'user']);
  assert.match(messages[3]!.content, /^\(denied\) Not run: the person pressed Stop\./);
});

test('a chat switches between a native and an inline model, both ways, and each sees the earlier calls its own way', async (t) => {
  const { socket, standin, turnFinished } = await startNativeChat(t, { TOOL_CALLS_INLINE_MODELS: 'qwen3:latest' });
  standin.enqueue(calls('Working.', [call('calculator', { expression: '6 * 7' })]), { content: '42.' });
  socket.send({ type: 'send', message: 'Six times seven?', model: 'llama3.2:latest' });
  await turnFinished();

  // Native → inline: the call reads as [TOOL:] text, its result as a tool_result block.
  socket.messages.length = 0;
  standin.enqueue({ content: 'Again: [TOOL:calculator]2+2[/TOOL]' }, { content: '4.' });
  socket.send({ type: 'send', message: 'And two plus two?', conversationId: '1', model: 'qwen3:latest' });
  await turnFinished();
  const inline = standin.requests[2]!;
  assert.equal(inline.body.tools, undefined, 'an inline model gets no tools field');
  assert.match(inline.messages[0]!.content, /\[TOOL:tool_name\]params\[\/TOOL\]/);
  assert.ok(inline.messages.every((message) => message.role !== 'tool' && message.tool_calls === undefined));
  assert.equal(inline.messages[2]!.content, 'Working.\n[TOOL:calculator]{"expression":"6 * 7"}[/TOOL]');
  assert.match(inline.messages[3]!.content, /<tool_result name="calculator" status="done">\n6 \* 7 = 42\n<\/tool_result>/);

  // Inline → native: the [TOOL:] call reads as tool_calls, its result as a tool turn.
  socket.messages.length = 0;
  standin.enqueue({ content: 'Both done.' });
  socket.send({ type: 'send', message: 'Summarise', conversationId: '1', model: 'llama3.2:latest' });
  await turnFinished();
  const native = standin.requests[4]!;
  assert.ok(native.body.tools);
  assert.deepEqual(native.messages.filter((message) => message.tool_calls).map((message) => message.tool_calls), [
    [{ function: { name: 'calculator', arguments: { expression: '6 * 7' } } }],
    [{ function: { name: 'calculator', arguments: { expression: '2+2' } } }],
  ]);
  assert.deepEqual(toolTurns(native.messages), [['calculator', '6 * 7 = 42'], ['calculator', '2+2 = 4']]);
});

test('TOOL_CALLS=inline teaches [TOOL:] to a model that reports tools; the picker says which models get native tools', async (t) => {
  const { socket, standin, turnFinished, app, cookies } = await startNativeChat(t, { TOOL_CALLS_INLINE_MODELS: 'qwen3:latest' });
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  assert.match(page.body, />llama3\.2 · native tools</);
  assert.match(page.body, />qwen3 · thinks · tools</);
  standin.enqueue({ content: 'Hi.' });
  socket.send({ type: 'send', message: 'Hi', model: 'qwen3:latest' });
  await turnFinished();
  assert.equal(standin.requests[0]!.body.tools, undefined);
});

test('OpenAI-compatible native calls: tools sent, fragments joined by index, results carry tool_call_id', async (t) => {
  const ollama = await startOllamaStandin();
  const openai = await startOpenAiStandin();
  t.after(() => Promise.all([ollama.close(), openai.close()]));
  const model = '@gpu-box/gemma-3-4b-it';
  const config = loadConfig({
    OLLAMA_HOST: ollama.url,
    OPENAI_BACKENDS: JSON.stringify([{ name: 'GPU box', baseUrl: openai.baseUrl }]),
    TOOL_CALLS_NATIVE_MODELS: model,
  });
  const chatModel = createChatModelFromConfig(config, { firstChunkTimeoutMs: 3000, chunkTimeoutMs: 3000, listTimeoutMs: 2000 });
  const services = testToolServices(() => new Date('2026-11-22T10:00:00Z'));
  const { registry } = createTestRegistry(services);
  const { socket, toolCalls, turnFinished } = await startChatHarness(t, { environment: { TOOL_CALLS_NATIVE_MODELS: model }, dependencies: { chatModel, registry } });
  openai.enqueue(
    { content: 'Computing.', toolCalls: [{ name: 'calculator', arguments: '{"expression": "6 * 7"}' }, { name: 'current_time', arguments: '{"timezone": "UTC"}' }], argumentPieces: 5 },
    { content: '42.' },
  );
  socket.send({ type: 'send', message: 'Six times seven, and the time?', model });
  await turnFinished();
  assert.deepEqual(toolCalls.listForConversation(1).map((stored) => [stored.name, stored.params, stored.status]), [
    ['calculator', '{"expression": "6 * 7"}', 'done'],
    ['current_time', '{"timezone": "UTC"}', 'done'],
  ]);
  const [first, second] = openai.requests;
  assert.ok((first!.body.tools as Array<{ function: { name: string } }>).some((tool) => tool.function.name === 'calculator'));
  const messages = second!.body.messages as Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
  const assistant = messages.at(-3)!;
  assert.equal(assistant.role, 'assistant');
  assert.deepEqual(assistant.tool_calls!.map((wire) => [wire.function.name, wire.function.arguments]), [
    ['calculator', '{"expression":"6 * 7"}'],
    ['current_time', '{"timezone":"UTC"}'],
  ]);
  const results = messages.slice(-2);
  assert.deepEqual(results.map((message) => [message.role, message.tool_call_id]), assistant.tool_calls!.map((wire) => ['tool', wire.id]));
  assert.equal(results[0]!.content, '6 * 7 = 42');

  // Arguments that are not JSON (a server that cut them) go back as an error the model can act on.
  socket.messages.length = 0;
  openai.enqueue({ content: '', toolCalls: [{ name: 'calculator', arguments: '{"expression": ' }] }, { content: 'Sorry.' });
  socket.send({ type: 'send', message: 'Again?', conversationId: '1' });
  await turnFinished();
  const last = openai.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
  assert.equal(last.at(-1)!.role, 'tool');
  assert.deepEqual((last.at(-2) as { tool_calls?: Array<{ function: { arguments: string } }> }).tool_calls!.map((wire) => wire.function.arguments), ['{}'], 'the broken arguments are not passed off as a value');
  assert.match(String(last.at(-1)!.content), /^\(failed\) Not run: the arguments are not valid JSON; calculator takes \{"expression": string \(required\)\}\.$/);
});

class DeviceTool extends Tool {
  readonly description = 'Controls one device in the house: switch it on or off, or read its state.';
  readonly examples = [];
  override readonly source = 'MCP: home';
  constructor(readonly name: string) {
    super(testToolServices());
  }
  async run(): Promise<string> {
    return `${this.name} is on`;
  }
}

test('past the budget, find_tools finds a tool and the next round sends it natively', async (t) => {
  const services = testToolServices();
  const { registry } = createTestRegistry(services);
  registry.add(new FindToolsTool(services, registry));
  registry.replaceGroup('home', Array.from({ length: 200 }, (_, index) => new DeviceTool(`home.device_${index}`)));
  const { socket, standin, toolCalls, turnFinished } = await startChatHarness(t, { environment: { TOOL_CALLS: 'native' }, dependencies: { registry } });
  const sentNames = (index: number) => (standin.requests[index]!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
  standin.enqueue(calls('', [call('find_tools', { query: 'device 150' })]), calls('', [call('home.device_150', { text: 'on' })]), { content: 'It is on.' });
  socket.send({ type: 'send', message: 'Turn on device 150', model: 'llama3.2:latest' });
  await turnFinished();
  assert.ok(sentNames(0).includes('find_tools'));
  assert.ok(!sentNames(0).includes('home.device_150'), 'not sent while only named');
  assert.match(standin.requests[0]!.messages[0]!.content, /More tools, not sent with this request \(find_tools tells what they take; then call them by name\): /);
  assert.ok(sentNames(1).includes('home.device_150'), 'sent once find_tools described it');
  assert.deepEqual(toolCalls.listForConversation(1).map((stored) => [stored.name, stored.status]), [['find_tools', 'done'], ['home.device_150', 'done']]);
});

class CameraTool extends Tool {
  readonly name = 'camera';
  readonly description = 'Takes a picture of the garden.';
  readonly examples = [];
  override readonly readsOutsideText = false;
  async run() {
    return { text: 'One picture of the garden.', images: [{ mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' }] };
  }
}

test('pictures a tool returns reach a native model that sees, after the tool turns', async (t) => {
  const services = testToolServices();
  const { registry } = createTestRegistry(services);
  registry.add(new CameraTool(services));
  const { socket, standin, turnFinished } = await startChatHarness(t, {
    environment: { TOOL_CALLS: 'auto' },
    dependencies: { registry },
    standin: { models: [{ name: 'gemma3:latest', capabilities: ['completion', 'tools', 'vision'] }] },
  });
  standin.enqueue(calls('', [call('camera', {})]), { content: 'Green.' });
  socket.send({ type: 'send', message: 'How does the garden look?', model: 'gemma3:latest' });
  await turnFinished();
  const messages = standin.requests[1]!.body.messages as Array<{ role: string; images?: string[] }>;
  assert.deepEqual(messages.slice(-2).map((message) => message.role), ['tool', 'user']);
  assert.deepEqual(messages.at(-1)!.images, ['iVBORw0KGgoAAAANSUhEUg==']);
});
