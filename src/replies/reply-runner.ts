import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { ChatModel, ChatTurn, NativeToolCall, NativeToolSpec } from '../engine/llm/chat-model.js';
import { charactersPerToken, fitToContext } from '../engine/llm/history.js';
import { LlmError } from '../engine/llm/llm-error.js';
import type { NativeToolPrompt, SystemPrompt } from './system-prompt.js';
import type { MarkdownRenderer } from '../engine/markdown/markdown-renderer.js';
import { StreamingMarkdown } from '../engine/markdown/streaming-markdown.js';
import type { MemoryFile } from '../providers/memory/memory-file.js';
import type { AttachmentStore } from '../storage/attachment-store.js';
import type { Conversation, ConversationStore, DraftPiece, MessageChanges, StoredMessage } from '../storage/conversation-store.js';
import type { StoredToolCall, ToolCallStore } from '../storage/tool-call-store.js';
import { ToolCallScanner, maximumTagsPerReply, type ScannedTag } from '../engine/tools/tool-call-scanner.js';
import { chooseNativeTools, namesInFinderResult } from '../engine/tools/native-tools.js';
import { maximumParamsLength, parseLooseJson } from '../engine/tools/tool-params.js';
import { findToolsName } from '../engine/tools/tool-registry.js';
import { finishedOutcome, type ToolCallRunner } from '../engine/tools/tool-call-runner.js';
import type { ToolImage } from '../engine/tools/tool.js';
import type { ToolRegistry } from '../engine/tools/tool-registry.js';
import { formatNativeResult, formatToolResults, type ToolOutcome } from '../engine/tools/tool-results.js';
import { llmErrorNotice, storedErrorText } from './error-notice.js';
import type { ActiveReply, ReplyHub } from './reply-hub.js';
import { UnsavedText } from './unsaved-text.js';

/** What a reply cut off by the server stopping (a restart, a crash) says. */
export const serverStoppedText = 'The server stopped while this reply was being written. The text so far is kept.';

export interface ReplyRunnerDependencies {
  store: ConversationStore;
  toolCalls: ToolCallStore;
  hub: ReplyHub;
  chatModel: ChatModel;
  toolCallRunner: ToolCallRunner;
  memory: MemoryFile;
  logger: FastifyBaseLogger;
  maxToolRounds: number;
  /** `native`: the model gets its tools natively; the prompt teaches no [TOOL:] syntax. */
  buildSystemPrompt(memory: string, native?: NativeToolPrompt): Promise<SystemPrompt>;
  /**
   * The tools: only a name the model may call makes fenced JSON naming it a call; each says
   * whether its results stay in the history; those offered are sent to a native-mode model.
   */
  tools: Pick<ToolRegistry, 'find' | 'named' | 'offered'>;
  /** Renders a message's Markdown block by block as it streams (in a worker, with a time limit). */
  markdown: Pick<MarkdownRenderer, 'renderBlocks' | 'version'>;
  /** How often a streaming reply saves what it added (a draft piece), so a crash keeps most of it. */
  saveIntervalMs?: number;
  /** Photos the person sent, given to a model that can see as its `images`. */
  attachments: Pick<AttachmentStore, 'imagesForConversation'>;
}

const replyReserveTokens = 1024;
const defaultContextTokens = 8192;

/** The context a model runs with for Hearth's requests: its own, up to 8192 tokens (a bigger one costs memory and speed). */
/** What the person asked of one turn beyond its messages. */
export interface TurnOptions {
  /** false: a thinking model is asked not to think (the composer's "no thinking" switch). */
  think?: boolean;
}

export function contextTokensOf(description: { contextLength: number | undefined }): number {
  return Math.min(description.contextLength ?? defaultContextTokens, defaultContextTokens);
}

/**
 * Adds a turn, merged into the previous one when it has the same role: models want user and
 * assistant to alternate. Each tool result stays a turn of its own.
 */
function appendTurn(turns: ChatTurn[], turn: ChatTurn): void {
  const last = turns.at(-1);
  if (last && last.role === turn.role && turn.role !== 'tool') {
    last.content = [last.content, turn.content].filter(Boolean).join('\n\n');
    if (turn.images) last.images = [...(last.images ?? []), ...turn.images];
    if (turn.toolCalls) last.toolCalls = [...(last.toolCalls ?? []), ...turn.toolCalls];
  } else turns.push({ ...turn });
}

/** The id a recorded call has on the wire: the model's own id is not kept, the record's is stable. */
const wireId = (call: StoredToolCall) => `call_${call.id}`;

/**
 * A recorded call as a native one: JSON params as they are (`{}` when they never parsed); free
 * text (a [TOOL:] call from an inline model) as the tool's one argument, or `text`.
 */
function asNativeCall(call: StoredToolCall, parameterNames: string[]): NativeToolCall {
  if (call.params.trim().startsWith('{')) {
    // JSON that never parsed (its call was answered with that error) goes as no arguments.
    const value = parseLooseJson(call.params);
    const input = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
    return { id: wireId(call), name: call.name, arguments: JSON.stringify(input) };
  }
  const key = parameterNames.length === 1 ? parameterNames[0]! : 'text';
  return { id: wireId(call), name: call.name, arguments: JSON.stringify(call.params.trim() === '' ? {} : { [key]: call.params }) };
}

/** A native call as the runner takes it: a tag with the arguments as its params (cut past the cap, as a written one is). */
function tagOfNativeCall(call: NativeToolCall): ScannedTag {
  const name = call.name.trim();
  if (call.arguments.length > maximumParamsLength) return { kind: 'tool', name, params: '', unclosed: false, tooLong: true, native: true };
  return { kind: 'tool', name, params: call.arguments, unclosed: false, native: true };
}

/**
 * One turn: the model writes, tools it calls run, their results go back, and it writes
 * again, up to maxToolRounds times. Each round is its own assistant message, with its
 * tool cards, so the saved conversation shows exactly what happened.
 */
export function createReplyRunner(dependencies: ReplyRunnerDependencies) {
  const { store, toolCalls, hub, chatModel, toolCallRunner, memory, logger, markdown } = dependencies;
  const saveIntervalMs = dependencies.saveIntervalMs ?? 1000;

  /**
   * The conversation as the model sees it: raw replies, then tool results as data, always
   * alternating user and assistant. Results of a round the model went on from follow its call;
   * results of a reply that ended there (stopped, expired) go before the person's next message,
   * except those of a tool whose success speaks for itself (a memory update: the memory is in
   * the system prompt).
   */
  function historyFor(setup: TurnSetup, exceptMessageId: number): ChatTurn[] {
    const { conversation, historyStart, vision, imagesByMessage } = setup;
    const native = setup.nativeTools !== undefined;
    // Calls made by name go natively to a native model (records of either mode alike); a tool
    // called with a tag of its own (a memory update) is part of the text in both modes.
    const byName = (call: StoredToolCall) => (dependencies.tools.named(call.name)?.calledWith ?? 'tool') === 'tool';
    const callsByMessage = toolCalls.groupedByMessage(conversation.id, historyStart);
    // The photos go with the person's turn they were sent in; a model that cannot see is told they were there.
    // Messages that say something: a round stopped before its first word leaves an empty one.
    const messages = store
      .listMessagesFrom(conversation.id, historyStart)
      .map((message) => ({
        role: message.role,
        // A native model sees what was shown, its calls apart; an inline one the raw text, [TOOL:] calls and all.
        text: native && message.role === 'assistant' ? message.content : (message.raw ?? message.content),
        calls: (callsByMessage.get(message.id) ?? []).filter((call) => finishedOutcome(call) !== undefined),
        id: message.id,
        images: message.role === 'user' ? imagesByMessage.get(message.id) : undefined,
      }))
      .filter((message) => message.id !== exceptMessageId && (message.text || message.calls.length > 0 || message.images));
    const turns: ChatTurn[] = [];
    let earlier: ToolOutcome[] = [];
    messages.forEach(({ role, text, calls, images }, index) => {
      let outcomes = calls.flatMap((call) => finishedOutcome(call) ?? []);
      if (native && role === 'assistant') {
        // The calls in the model's own format, each result a tool turn right after them.
        const nativeCalls = calls.filter(byName);
        const names = (call: StoredToolCall) => Object.keys(dependencies.tools.named(call.name)?.parameters.properties ?? {});
        if (text || nativeCalls.length > 0) appendTurn(turns, { role, content: text, ...(nativeCalls.length > 0 ? { toolCalls: nativeCalls.map((call) => asNativeCall(call, names(call))) } : {}) });
        for (const call of nativeCalls) turns.push({ role: 'tool', toolName: call.name, toolCallId: wireId(call), content: formatNativeResult(finishedOutcome(call)!) });
        outcomes = calls.filter((call) => !byName(call)).flatMap((call) => finishedOutcome(call) ?? []);
        text = '';
      }
      if (role === 'user' && earlier.length > 0) {
        text = `${formatToolResults(earlier, 'earlier')}\n${text}`;
        earlier = [];
      }
      if (images && vision) appendTurn(turns, { role, content: text, images });
      else if (images) appendTurn(turns, { role, content: `${text}\n\n(${images.length === 1 ? 'A photo was' : `${images.length} photos were`} attached here; this model cannot see photos.)`.trim() });
      else if (text) appendTurn(turns, { role, content: text });
      if (outcomes.length === 0) return;
      const next = messages[index + 1];
      if (next === undefined || next.role === 'assistant') appendTurn(turns, { role: 'user', content: formatToolResults(outcomes) });
      else earlier = outcomes.filter((outcome) => dependencies.tools.named(outcome.name)?.resultGoesToHistory !== false);
    });
    return turns;
  }

  /** What every round of one turn shares. */
  interface TurnSetup {
    conversation: Conversation;
    /**
     * The oldest message a round reads: the newest messages whose text fills the model's window,
     * found once per turn, so a long chat costs each round what its newest page costs.
     */
    historyStart: number;
    /** The person's photos by message, as base64: read once per turn (they cannot change during it), not every round. */
    imagesByMessage: Map<number, string[]>;
    reply: ActiveReply;
    system: ChatTurn;
    /** Asks a thinking model for its reasoning (true) or not to think (false); undefined for other models. */
    think: boolean | undefined;
    /** The model can see pictures (Ollama's `vision` capability). */
    vision: boolean;
    /** The model gets its tools natively: which ones, for each round (undefined: taught [TOOL:]). */
    nativeTools: (() => NativeToolSpec[]) | undefined;
    contextTokens: number;
    stop: AbortSignal;
    /** Saves what the message being streamed added since its last save. */
    saveDraft(piece: DraftPiece): void;
    /** The current round's raw text, tags included (null: the same as the shown text). */
    roundText: { raw(): string | null };
    /** Formats the message being streamed, block by block. */
    formatter(): StreamingMarkdown;
  }

  /** Streams one round into the reply's current message; returns the tags the model wrote. */
  async function streamRound(setup: TurnSetup, images: ToolImage[]): Promise<ScannedTag[]> {
    const { conversation, reply } = setup;
    const scanner = new ToolCallScanner({ isKnownTool: (name) => dependencies.tools.find(name) !== undefined });
    const tags: ScannedTag[] = [];
    let written = 0;
    const nativeCalls: NativeToolCall[] = [];
    // The raw text keeps every call as [TOOL:] text, native ones too: one history, whichever model reads it next.
    setup.roundText.raw = () => {
      if (written === 0 && nativeCalls.length === 0) return null;
      return [scanner.raw, ...nativeCalls.map((call) => `[TOOL:${call.name}]${call.arguments}[/TOOL]`)].filter(Boolean).join('\n');
    };
    const history = historyFor(setup, reply.messageId);
    // Pictures a tool just returned go with its results, for a model that can see them.
    const last = history.at(-1);
    if (setup.vision && images.length > 0 && last?.role === 'user') last.images = [...(last.images ?? []), ...images.map((image) => image.data)];
    else if (setup.vision && images.length > 0) history.push({ role: 'user', content: 'The pictures the tools returned.', images: images.map((image) => image.data) });
    const messages = fitToContext(setup.system, history, setup.contextTokens, replyReserveTokens);
    const roundController = new AbortController();
    const unsaved = new UnsavedText();
    const saveDraft = () => {
      const piece = unsaved.take();
      if (piece) setup.saveDraft(piece);
    };
    let lastSave = Date.now();
    const stream = await chatModel.streamReply({
      model: conversation.model,
      messages,
      think: setup.think,
      contextTokens: setup.contextTokens,
      ...(setup.nativeTools ? { tools: setup.nativeTools() } : {}),
      signal: AbortSignal.any([setup.stop, roundController.signal]),
    });
    const show = (visible: string, thinking: string) => {
      if (!visible && !thinking) return;
      reply.content += visible;
      reply.thinking += thinking;
      setup.formatter().push(visible);
      hub.publish(conversation.id, { type: 'delta', messageId: reply.messageId, content: visible, thinking });
    };
    for await (const chunk of stream) {
      const step = scanner.push(chunk.content);
      tags.push(...step.tags);
      written += step.tags.length;
      // Native calls run in the order they came, with any the model wrote as text.
      for (const call of chunk.toolCalls ?? []) {
        if (tags.length >= maximumTagsPerReply) break;
        nativeCalls.push(call);
        tags.push(tagOfNativeCall(call));
      }
      unsaved.add(step.visible, chunk.thinking, step.raw);
      show(step.visible, chunk.thinking);
      if (step.cut) {
        // The model began to invent a result: cut generation at the call.
        roundController.abort();
        break;
      }
      if (Date.now() - lastSave >= saveIntervalMs) {
        saveDraft();
        lastSave = Date.now();
      }
    }
    const end = scanner.finish();
    tags.push(...end.tags);
    written += end.tags.length;
    unsaved.add(end.visible, '', end.raw);
    show(end.visible, '');
    reply.content = reply.content.trimEnd();
    // The whole text is written once, when the message ends (finish); until then, only pieces.
    saveDraft();
    return tags;
  }

  /** The tools a chat has called, and those find_tools described to it: a native model is sent them from then on. */
  function wantedTools(conversationId: number): Set<string> {
    const wanted = new Set<string>();
    for (const call of toolCalls.listForConversation(conversationId)) {
      wanted.add(call.name);
      if (call.name === findToolsName && call.status === 'done') for (const name of namesInFinderResult(call.result)) wanted.add(name);
    }
    return wanted;
  }

  /** Memory, model details and system prompt for a new turn. */
  async function prepareTurn(
    conversation: Conversation,
    options: TurnOptions,
  ): Promise<{ system: ChatTurn; think: boolean | undefined; vision: boolean; nativeTools: (() => NativeToolSpec[]) | undefined; contextTokens: number; memoryRevision: string }> {
    const snapshot = await memory.read().catch((error: Error) => {
      hub.publish(conversation.id, { type: 'notice', text: `${error.message} The reply goes on without memory.` });
      return undefined;
    });
    const description = await chatModel.describeModel(conversation.model);
    const native = description.toolCalls === 'native';
    const usage = native ? toolCalls.usageCounts() : undefined;
    // Each round sends what fits the budget, plus what this chat called or find_tools described since.
    const nativeTools = native ? () => chooseNativeTools(dependencies.tools, { usage, wanted: wantedTools(conversation.id) }).specs : undefined;
    const nativePrompt = native ? { text: chooseNativeTools(dependencies.tools, { usage, wanted: wantedTools(conversation.id) }).promptText } : undefined;
    const prompt = await dependencies.buildSystemPrompt(snapshot?.promptContent ?? '', nativePrompt);
    // An MCP server's tool descriptions steer the model as much as its results: from here on the
    // chat's memory updates ask, even after the server is gone (it may go on purpose).
    if (prompt.outsideText) store.markOutsideText(conversation.id);
    return {
      system: { role: 'system', content: prompt.content },
      // Only a model that thinks is told anything about thinking: Ollama refuses `think` from the others.
      think: description.capabilities.includes('thinking') ? options.think !== false : undefined,
      vision: description.capabilities.includes('vision'),
      nativeTools,
      contextTokens: contextTokensOf(description),
      memoryRevision: snapshot?.revision ?? '',
    };
  }

  async function runTurn(conversation: Conversation, firstMessage: StoredMessage, options: TurnOptions = {}): Promise<void> {
    const stopController = new AbortController();
    // Each message's blocks are formatted once, off the main thread, as they finish: the page gets
    // them as HTML while the open block streams as text, and the finished message keeps the same HTML.
    const newFormatter = (): StreamingMarkdown => {
      const formatter: StreamingMarkdown = new StreamingMarkdown(markdown, (html, end) => {
        if (reply.formatted !== formatter) return; // its message has ended
        hub.publish(conversation.id, { type: 'blocks-formatted', messageId: reply.messageId, html, tail: reply.content.slice(end) });
      });
      return formatter;
    };
    const reply: ActiveReply & { formatted: StreamingMarkdown } = {
      conversationId: conversation.id,
      messageId: firstMessage.id,
      content: '',
      thinking: '',
      formatted: new StreamingMarkdown(markdown),
      stop: (reason) => stopController.abort(reason ?? 'person'),
    };
    reply.formatted = newFormatter();
    hub.begin(reply);
    const roundText = { raw: (): string | null => null };
    const saveDraft = (piece: DraftPiece) => store.appendDraft(reply.messageId, piece);
    // A message that ends is kept, whole, with its final status and the HTML of all its blocks.
    const finish = async (changes: MessageChanges) => {
      const html = await reply.formatted.finish();
      store.updateMessage(reply.messageId, { content: reply.content, thinking: reply.thinking, raw: roundText.raw(), ...changes, html, html_version: markdown.version });
      // Writing a long reply and sending its page update are each a piece of work in one go:
      // others' requests get a turn between them.
      await nextTurn();
    };
    // A reply the person stopped says so; one cut by the server stopping is a failure they can retry,
    // worded as after a crash (the person did not press Stop).
    const stopped = (): MessageChanges =>
      stopController.signal.reason === 'shutdown' ? { status: 'failed', error: serverStoppedText } : { status: 'stopped' };

    try {
      const prepared = await prepareTurn(conversation, options);
      const historyStart = store.historyStart(conversation.id, prepared.contextTokens * charactersPerToken);
      const imagesByMessage = dependencies.attachments.imagesForConversation(conversation.id, historyStart);
      const setup: TurnSetup = { conversation, reply, saveDraft, roundText, formatter: () => reply.formatted, stop: stopController.signal, historyStart, imagesByMessage, ...prepared };
      const turn = { memoryRevision: prepared.memoryRevision, vision: prepared.vision };
      let images: ToolImage[] = [];
      for (let round = 1; ; round += 1) {
        const tags = await streamRound(setup, images);
        if (stopController.signal.aborted) {
          await finish(stopped());
          break;
        }
        if (tags.length === 0) {
          await finish({ status: 'complete' });
          break;
        }
        if (tags.some((tag) => tag.kind === 'tool') && round > dependencies.maxToolRounds) {
          await finish({
            status: 'complete',
            error: `Stopped after ${dependencies.maxToolRounds} tool rounds (MAX_TOOL_ROUNDS): the assistant kept calling tools. Ask again, more narrowly, or raise the limit.`,
          });
          break;
        }
        await finish({ status: 'complete' });
        hub.publish(conversation.id, { type: 'message-updated', messageId: reply.messageId });

        const messageId = reply.messageId;
        const outcome = await toolCallRunner.runRound({
          tags,
          messageId,
          conversationId: conversation.id,
          signal: stopController.signal,
          turn,
          onAdded: (toolCallId) => hub.publish(conversation.id, { type: 'tool-call-added', messageId, toolCallId }),
          onChanged: (toolCallId) => hub.publish(conversation.id, { type: 'tool-call-updated', toolCallId }),
        });
        if (outcome.expired) {
          // Nobody is there to answer: end the reply, act on nothing more, keep what was said.
          await finish({ status: 'complete', error: 'This reply ended because an approval waited with no answer. Nothing was done; ask again when you are back.' });
          break;
        }
        if (stopController.signal.aborted) {
          // Stop while a tool ran or a card waited: the tool was aborted (or the call denied); the reply ends here, stopped.
          await finish(stopped());
          break;
        }
        if (!outcome.anotherRound) break;
        images = outcome.images;

        const next = store.addMessage(conversation.id, 'assistant', '', { status: 'streaming', model: conversation.model });
        reply.messageId = next.id;
        reply.content = '';
        reply.thinking = '';
        reply.formatted = newFormatter();
        hub.publish(conversation.id, { type: 'message-added', messageId: next.id });
      }
    } catch (error) {
      if (stopController.signal.aborted) {
        await finish(stopped());
      } else {
        const text = error instanceof LlmError ? storedErrorText(llmErrorNotice(error)) : 'The reply failed unexpectedly. The text so far is kept.';
        if (error instanceof LlmError) logger.warn({ failure: error.failure, server: error.server, conversationId: conversation.id }, error.message);
        else logger.error({ err: error, conversationId: conversation.id }, 'reply failed');
        await finish({ status: 'failed', error: text });
      }
    } finally {
      hub.publish(conversation.id, { type: 'message-updated', messageId: reply.messageId });
      hub.end(conversation.id);
    }
  }

  return { runTurn };
}

export type ReplyRunner = ReturnType<typeof createReplyRunner>;
