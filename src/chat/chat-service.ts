import type { ChatModel } from '../llm/chat-model.js';
import { photoLimits } from '../photos/photo-checks.js';
import type { VisionModels } from '../photos/vision-models.js';
import type { AttachmentStore } from '../storage/attachment-store.js';
import type { Conversation, ConversationStore, StoredMessage } from '../storage/conversation-store.js';
import { titleFromMessage } from '../storage/conversation-store.js';
import type { ReplyHub } from './reply-hub.js';
import type { ReplyRunner } from './reply-runner.js';

export const maxMessageCharacters = 32_000;

/** Something the person sent that cannot be used; the text says what to do instead. */
export class ChatInputError extends Error {
  override name = 'ChatInputError';
}

export interface SendRequest {
  conversationId: number | undefined;
  text: string;
  model: string | undefined;
  /** Photos uploaded for this message (POST /attachments), in order. */
  attachmentIds?: number[];
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
  replyRunner: ReplyRunner;
  /** The model for a new chat when none is chosen (OLLAMA_MODEL). */
  configuredModel: string | undefined;
  attachments: AttachmentStore;
  visionModels: VisionModels;
}

export function createChatService(dependencies: ChatServiceDependencies) {
  const { store, hub, chatModel, replyRunner, attachments, visionModels } = dependencies;

  /** The photos going with a message: all still unsent, not too many, and a model that can see them. */
  async function checkPhotos(ids: number[], model: string): Promise<void> {
    if (ids.length === 0) return;
    if (ids.length > photoLimits.perMessage) {
      throw new ChatInputError(`That is ${ids.length} photos; at most ${photoLimits.perMessage} can go with one message. Remove some.`);
    }
    if (attachments.listUnsent(ids).length !== ids.length) {
      throw new ChatInputError('A photo is no longer here (unsent photos are removed after a day, or it was already sent). Remove it and attach it again.');
    }
    // Refused, not dropped: a photo the model cannot see would leave the person thinking it did.
    if (!(await visionModels.canSee(model))) throw new ChatInputError(await visionModels.refusal(model));
  }

  async function defaultModel(): Promise<string | undefined> {
    if (dependencies.configuredModel) return dependencies.configuredModel;
    try {
      return (await chatModel.listModels())[0];
    } catch {
      return undefined;
    }
  }

  return {
    defaultModel,

    /** Saves the person's message first, then starts the reply in the background. */
    async sendMessage(request: SendRequest, beforeReply?: (conversation: Conversation, created: boolean) => void): Promise<SendResult> {
      const text = request.text.trim();
      const photoIds = request.attachmentIds ?? [];
      // Photos alone are a message too.
      if (text.length === 0 && photoIds.length === 0) throw new ChatInputError('Type a message first.');
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
          chatModel.listModelGroups
            ? `No model is available: no model server (Ollama at ${chatModel.host}, or those in OPENAI_BASE_URL / OPENAI_BACKENDS) has one or is answering. Start one, or install a model with: ollama pull llama3.2`
            : `No model is available: Ollama at ${chatModel.host} has none installed or is not answering. Install one with: ollama pull llama3.2`,
        );
      }
      await checkPhotos(photoIds, model);
      const created = !conversation;
      if (!conversation) conversation = store.createConversation(text ? titleFromMessage(text) : photoIds.length > 1 ? 'Photos' : 'Photo', model);
      else if (conversation.model !== model) {
        store.setConversationModel(conversation.id, model);
        conversation = { ...conversation, model };
      }
      const userMessage = store.addMessage(conversation.id, 'user', text);
      attachments.linkToMessage(photoIds, conversation.id, userMessage.id);
      const assistantMessage = store.addMessage(conversation.id, 'assistant', '', { status: 'streaming', model });
      // The caller subscribes to a new conversation here, before anything is published.
      beforeReply?.(conversation, created);
      hub.publish(conversation.id, { type: 'message-added', messageId: userMessage.id });
      hub.publish(conversation.id, { type: 'message-added', messageId: assistantMessage.id });
      hub.track(replyRunner.runTurn(conversation, assistantMessage));
      return { conversation, created, userMessage, assistantMessage };
    },

    stop(conversationId: number): boolean {
      const reply = hub.active(conversationId);
      reply?.stop();
      return reply !== undefined;
    },
  };
}

export type ChatService = ReturnType<typeof createChatService>;
