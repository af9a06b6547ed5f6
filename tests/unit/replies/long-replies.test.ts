/*
 * A model that loops writes megabytes. Streaming such a reply must cost each chunk the same
 * whatever came before it, so the server stays quick for everyone else: these tests count the
 * text handed to the database (no clocks), at two reply lengths.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import pino from 'pino';
import { ReplyHub } from '../../../src/replies/reply-hub.js';
import { createReplyRunner } from '../../../src/replies/reply-runner.js';
import type { ChatModel, ReplyChunk } from '../../../src/engine/llm/chat-model.js';
import { createMemoryFile } from '../../../src/providers/memory/memory-file.js';
import { createConversationStore, type ConversationStore } from '../../../src/storage/conversation-store.js';
import { openDatabase } from '../../../src/storage/database.js';
import { createSettingsStore } from '../../../src/storage/settings-store.js';
import { createToolCallStore } from '../../../src/storage/tool-call-store.js';
import { ApprovalDesk } from '../../../src/engine/tools/approvals.js';
import { createToolCallRunner, type ToolCallRunner } from '../../../src/engine/tools/tool-call-runner.js';
import { maximumTagsPerReply, scanToolCalls, ToolCallScanner } from '../../../src/engine/tools/tool-call-scanner.js';
import { ToolRegistry } from '../../../src/engine/tools/tool-registry.js';
import { createTestRegistry, testToolServices } from '../../support/test-tools.js';

const chunkCharacters = 64;

/** Characters of text in a call's arguments (strings, and the strings of an object argument). */
function charactersIn(values: unknown[]): number {
  let total = 0;
  for (const value of values) {
    if (typeof value === 'string') total += value.length;
    else if (value && typeof value === 'object') total += charactersIn(Object.values(value));
  }
  return total;
}

/** The store, noting how much text each call hands to the database. */
function countingStore(store: ConversationStore): { store: ConversationStore; writes: number[] } {
  const writes: number[] = [];
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...values: unknown[]) => {
        writes.push(charactersIn(values));
        return (value as (...values: unknown[]) => unknown).apply(target, values);
      };
    },
  });
  return { store: counted, writes };
}

/** A model that writes `text` in small chunks; then, given `hold`, says so and keeps the stream open (a crash comes next). */
function scriptedModel(text: string, hold?: { reached(): void; released: Promise<void> }): ChatModel {
  return {
    host: 'test',
    listModels: async () => ['test-model'],
    describeModel: async (name) => ({ name, capabilities: [], contextLength: 8192 }),
    isReachable: async () => true,
    checkBackends: async () => [{ id: 'test', name: 'Test', kind: 'ollama', status: 'reachable' }],
    async streamReply() {
      async function* chunks(): AsyncGenerator<ReplyChunk> {
        for (let index = 0; index < text.length; index += chunkCharacters) yield { content: text.slice(index, index + chunkCharacters), thinking: '' };
        if (!hold) return;
        hold.reached();
        await hold.released;
      }
      return Object.assign(chunks(), { abort: () => undefined });
    },
  };
}

function buildRunner(t: TestContext, model: ChatModel) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-test-'));
  const database = openDatabase(dataDir);
  t.after(() => {
    database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const counting = countingStore(createConversationStore(database));
  const runner = createReplyRunner({
    store: counting.store,
    toolCalls: createToolCallStore(database),
    hub: new ReplyHub(),
    chatModel: model,
    toolCallRunner: { runRound: async () => ({ anotherRound: false, expired: false, images: [] }) } as unknown as ToolCallRunner,
    memory: createMemoryFile({ file: path.join(dataDir, 'memory.md'), maxBytes: 2048, database }),
    logger: pino({ level: 'silent' }),
    maxToolRounds: 10,
    buildSystemPrompt: async () => ({ content: 'You are a test.', outsideText: false }),
    tools: new ToolRegistry([]),
    markdown: { version: 1, renderBlocks: async (_blocks, budget) => ({ html: '<p>rendered</p>', budget }) },
    // A save after every chunk: the most a streaming reply can ask of the database.
    saveIntervalMs: 0,
    attachments: { imagesForConversation: () => new Map() },
  });
  const plain = createConversationStore(database);
  const conversation = plain.createConversation('Loop', 'test-model');
  plain.addMessage(conversation.id, 'user', 'Say something long.');
  const message = plain.addMessage(conversation.id, 'assistant', '', { status: 'streaming', model: 'test-model' });
  return { runner, conversation, message, writes: counting.writes, store: plain, database };
}

/** Streams a reply of `length` characters, saving after every chunk; what the database was handed. */
async function streamReply(t: TestContext, length: number) {
  const text = '[<`'.repeat(Math.ceil(length / 3)).slice(0, length);
  const { runner, conversation, message, writes, store } = buildRunner(t, scriptedModel(text));
  await runner.runTurn(conversation, message);
  const saved = store.getMessage(message.id)!;
  return { text, saved, total: writes.reduce((sum, size) => sum + size, 0), largest: Math.max(...writes) };
}

test('a long reply saved while it streams hands the database each chunk once, not the whole text at every save', async (t) => {
  const short = await streamReply(t, 8 * 1024);
  const long = await streamReply(t, 64 * 1024);
  for (const run of [short, long]) {
    assert.equal(run.saved.content, run.text, 'the whole reply is kept');
    assert.equal(run.saved.status, 'complete');
    // The streamed pieces once, and the whole text once when it ends: linear in the length.
    assert.ok(run.total <= 2 * run.text.length + 1024, `${run.total.toLocaleString('en')} characters handed to the database for a ${run.text.length.toLocaleString('en')}-character reply`);
  }
  // The same work per save at 8 KB and at 64 KB: only the final write (the whole text) grows.
  const savesWhileStreaming = (run: typeof short) => run.total - run.largest;
  assert.ok(savesWhileStreaming(long) / savesWhileStreaming(short) < 10, 'eight times the text costs about eight times the saves');
});

test('a reply cut off by a crash keeps the text its saves wrote, tags included, at the next start', async (t) => {
  let release!: () => void;
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const text = 'Let me look. [TOOL:calculator]1+1[/TOOL]';
  const { runner, conversation, message, database } = buildRunner(t, scriptedModel(text, { reached, released }));
  const running = runner.runTurn(conversation, message);
  // Every chunk is saved (saveIntervalMs 0); then the stream hangs, and the server "crashes".
  await held;
  const restarted = createConversationStore(database);
  assert.equal(restarted.closeInterruptedReplies('The server stopped.'), 1);
  const kept = restarted.getMessage(message.id)!;
  assert.equal(kept.status, 'failed');
  assert.equal(kept.content, 'Let me look. ');
  assert.equal(kept.raw, text, 'what the model said, with its call, goes into its next history');
  assert.deepEqual(database.prepare('SELECT count(*) AS pieces FROM message_drafts').get(), { pieces: 0 }, 'the pieces are gone once joined');
  release();
  await running;
});

test('each scanner step says what it added to the raw text, so a save can write just that', () => {
  const scanner = new ToolCallScanner();
  const text = 'Sure. ```\n[TOOL:calculator]2*3[/TOOL]\n``` \n [TOOL:current_time][/TOOL]';
  let added = '';
  for (let index = 0; index < text.length; index += 5) added += scanner.push(text.slice(index, index + 5)).raw;
  added += scanner.finish().raw;
  assert.equal(added, scanner.raw);
  assert.equal(added, text);
});

test('a round of 64 calls (a looping model) lets other requests in between its calls', async (t) => {
  const { conversation, message, database } = buildRunner(t, scriptedModel(''));
  const toolCalls = createToolCallStore(database);
  const services = testToolServices();
  const runner = createToolCallRunner({
    registry: createTestRegistry(services).registry,
    toolCalls,
    conversations: createConversationStore(database),
    approvals: new ApprovalDesk(createSettingsStore(database)),
    logger: pino({ level: 'silent' }),
  });
  const { tags } = scanToolCalls('[TOOL:calculator]1+1[/TOOL]\n'.repeat(maximumTagsPerReply));
  assert.equal(tags.length, maximumTagsPerReply);
  // Another request's work, standing in line behind the round: how often it gets a turn meanwhile.
  let turns = 0;
  let running = true;
  const otherRequest = () => {
    turns += 1;
    if (running) setImmediate(otherRequest);
  };
  setImmediate(otherRequest);
  await runner.runRound({ tags, messageId: message.id, conversationId: conversation.id, signal: new AbortController().signal, turn: { memoryRevision: '', vision: false }, onAdded: () => undefined, onChanged: () => undefined });
  running = false;
  assert.equal(toolCalls.listForMessages([message.id]).get(message.id)?.length, maximumTagsPerReply, 'every call ran');
  assert.ok(turns >= maximumTagsPerReply, `other work got ${turns} turns during the ${maximumTagsPerReply} calls`);
});
