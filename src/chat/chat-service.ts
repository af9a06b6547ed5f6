import type { FastifyBaseLogger } from 'fastify';
import type { ChatModel, ChatTurn } from '../llm/chat-model.js';
import { fitToContext } from '../llm/history.js';
import { LlmError } from '../llm/llm-error.js';
import type { Conversation, ConversationStore, StoredMessage } from '../storage/conversation-store.js';
import { titleFromMessage } from '../storage/conversation-store.js';
import type { ReplyHub } from './reply-hub.js';

export const maxMessageCharacters = 32_000;

/** Something the person sent that cannot be used; the text says what to do instead. */
export class ChatInputError extends Error {
  override name = 'ChatInputError';
}

export interface SendRequest {
  conversationId: number | undefined;
  text: string;
  model: string | undefined;
}

export interface SendResult {
  conversation: Conversation;
  created: boolean;
  userMessage: StoredMessage;
  assistantMessage: StoredMessage;
}

export interface ChatServiceDependencies {
  store: ConversationStore;
  hub: ReplyHub;
  chatModel: ChatModel;
  logger: FastifyBaseLogger;
  /** The model for a new chat when none is chosen (OLLAMA_MODEL). */
  configuredModel: string | undefined;
  buildSystemPrompt(): Promise<string>;
  /** How often a streaming reply is written to the database, so a crash keeps most of it. */
  saveIntervalMs?: number;
}

const replyReserveTokens = 1024;
const defaultContextTokens = 8192;

export function createChatService(dependencies: ChatServiceDependencies) {
  const { store, hub, chatModel, logger } = dependencies;
  const saveIntervalMs = dependencies.saveIntervalMs ?? 1000;

  async function defaultModel(): Promise<string | undefined> {
    if (dependencies.configuredModel) return dependencies.configuredModel;
    try {
      return (await chatModel.listModels())[0];
    } catch {
      return undefined;
    }
  }

  function historyFor(conversationId: number, exceptMessageId: number): ChatTurn[] {
    return store
      .listMessages(conversationId)
      .filter((message) => message.id !== exceptMessageId && (message.content || message.raw))
      .map((message) => ({ role: message.role, content: message.raw ?? message.content }));
  }

  async function runReply(conversation: Conversation, assistantMessage: StoredMessage): Promise<void> {
    const live = { content: '', thinking: '' };
    const stopController = new AbortController();
    let stopped = false;
    const reply = {
      conversationId: conversation.id,
      messageId: assistantMessage.id,
      get content() {
        return live.content;
      },
      get thinking() {
        return live.thinking;
      },
      stop() {
        stopped = true;
        stopController.abort();
      },
    };
    hub.begin(reply);
    let lastSave = Date.now();
    const save = (changes: Parameters<ConversationStore['updateMessage']>[1] = {}) =>
      store.updateMessage(assistantMessage.id, { content: live.content, thinking: live.thinking, ...changes });

    try {
      const description = await chatModel.describeModel(conversation.model);
      const contextTokens = Math.min(description.contextLength ?? defaultContextTokens, defaultContextTokens);
      const system: ChatTurn = { role: 'system', content: await dependencies.buildSystemPrompt() };
      const messages = fitToContext(system, historyFor(conversation.id, assistantMessage.id), contextTokens, replyReserveTokens);
      if (stopped) throw new StoppedSignal();
      const stream = await chatModel.streamReply({
        model: conversation.model,
        messages,
        think: description.capabilities.includes('thinking'),
        contextTokens,
        signal: stopController.signal,
      });
      for await (const chunk of stream) {
        if (stopped) break;
        if (!chunk.content && !chunk.thinking) continue;
        live.content += chunk.content;
        live.thinking += chunk.thinking;
        hub.publish(conversation.id, { type: 'delta', messageId: assistantMessage.id, content: chunk.content, thinking: chunk.thinking });
        if (Date.now() - lastSave >= saveIntervalMs) {
          save();
          lastSave = Date.now();
        }
      }
      save({ status: stopped ? 'stopped' : 'complete' });
    } catch (error) {
      if (stopped || error instanceof StoppedSignal) {
        save({ status: 'stopped' });
      } else {
        const message = error instanceof LlmError ? error.message : 'The reply failed unexpectedly. The text so far is kept.';
        if (!(error instanceof LlmError)) logger.error({ err: error, conversationId: conversation.id }, 'reply failed');
        else logger.warn({ failure: error.failure, conversationId: conversation.id }, error.message);
        save({ status: 'failed', error: message });
      }
    } finally {
      hub.publish(conversation.id, { type: 'message-updated', messageId: assistantMessage.id });
      hub.end(conversation.id);
    }
  }

  return {
    defaultModel,

    /** Saves the person's message first, then starts the reply in the background. */
    async sendMessage(request: SendRequest, beforeReply?: (conversation: Conversation, created: boolean) => void): Promise<SendResult> {
      const text = request.text.trim();
      if (text.length === 0) throw new ChatInputError('Type a message first.');
      if (text.length > maxMessageCharacters) {
        throw new ChatInputError(
          `That message is ${text.length.toLocaleString('en')} characters; the limit is ${maxMessageCharacters.toLocaleString('en')}. Shorten it or split it.`,
        );
      }
      let conversation = request.conversationId === undefined ? undefined : store.getConversation(request.conversationId);
      if (request.conversationId !== undefined && !conversation) {
        throw new ChatInputError('That conversation no longer exists. Start a new chat.');
      }
      if (conversation && hub.active(conversation.id)) {
        throw new ChatInputError('A reply is still being written. Wait for it or press Stop.');
      }
      const model = request.model || conversation?.model || (await defaultModel());
      if (!model) {
        throw new ChatInputError(
          `No model is available: Ollama at ${chatModel.host} has none installed or is not answering. Install one with: ollama pull llama3.2`,
        );
      }
      const created = !conversation;
      if (!conversation) conversation = store.createConversation(titleFromMessage(text), model);
      else if (conversation.model !== model) {
        store.setConversationModel(conversation.id, model);
        conversation = { ...conversation, model };
      }
      const userMessage = store.addMessage(conversation.id, 'user', text);
      const assistantMessage = store.addMessage(conversation.id, 'assistant', '', { status: 'streaming', model });
      // The caller subscribes to a new conversation here, before anything is published.
      beforeReply?.(conversation, created);
      hub.publish(conversation.id, { type: 'message-added', messageId: userMessage.id });
      hub.publish(conversation.id, { type: 'message-added', messageId: assistantMessage.id });
      hub.track(runReply(conversation, assistantMessage));
      return { conversation, created, userMessage, assistantMessage };
    },

    stop(conversationId: number): boolean {
      const reply = hub.active(conversationId);
      reply?.stop();
      return reply !== undefined;
    },
  };
}

class StoppedSignal extends Error {}

export type ChatService = ReturnType<typeof createChatService>;
