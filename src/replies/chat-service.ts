import type { ChatModel } from '../engine/llm/chat-model.js';
import { modelGroupsOf } from '../engine/llm/model-router.js';
import type { ApprovalDesk } from '../engine/tools/approvals.js';
import type { ToolRegistry } from '../engine/tools/tool-registry.js';
import { photoLimits } from '../providers/photos/photo-checks.js';
import type { VisionModels } from '../providers/photos/vision-models.js';
import type { AttachmentStore } from '../storage/attachment-store.js';
import type { Conversation, ConversationStore, StoredMessage } from '../storage/conversation-store.js';
import { titleFromMessage } from '../storage/conversation-store.js';
import type { FreeSpaceReclaimer } from '../storage/free-space.js';
import { lastModelSetting, type SettingsStore } from '../storage/settings-store.js';
import type { ToolCallStore } from '../storage/tool-call-store.js';
import { ChatInputError } from './chat-input-error.js';
import { noModelNotice, plainNotice } from './error-notice.js';
import type { ReplyHub } from './reply-hub.js';
import type { ReplyRunner } from './reply-runner.js';
import type { ChatTitles } from './chat-titles.js';

/*
 * The one writer of conversations and messages: every change a person asks for, from the socket
 * or a form, is checked and made here (the web layer reads, and calls these).
 */

export const maxMessageCharacters = 32_000;

export const maxTitleCharacters = 120;

/** The person's title, trimmed with inner runs of white space made one space; or ChatInputError saying why it cannot be one. */
export function checkTitle(value: unknown): string {
  if (typeof value !== 'string') throw new ChatInputError('Send the new title as text.');
  const title = value.replace(/\s+/g, ' ').trim();
  if (title.length === 0) throw new ChatInputError('The title cannot be empty.');
  const length = [...title].length;
  if (length > maxTitleCharacters) throw new ChatInputError(`The title is ${length} characters long; the limit is ${maxTitleCharacters}.`);
  return title;
}

export interface SendRequest {
  conversationId: number | undefined;
  text: string;
  model: string | undefined;
  /** Photos uploaded for this message (POST /attachments), in order. */
  attachmentIds?: number[];
  /** false: a thinking model is asked not to think for this reply. */
  think?: boolean;
}

export interface SendResult {
  conversation: Conversation;
  created: boolean;
  userMessage: StoredMessage;
  assistantMessage: StoredMessage;
}

/** Which neighbouring version to show. */
export type VersionDirection = 'earlier' | 'later';

export interface ChatServiceDependencies {
  store: ConversationStore;
  hub: ReplyHub;
  chatModel: ChatModel;
  replyRunner: ReplyRunner;
  /** The model for a new chat when none is chosen and none was used before (OLLAMA_MODEL). */
  configuredModel: string | undefined;
  /** Where the model last picked or sent with is kept, for the next new chat. */
  settings: Pick<SettingsStore, 'get' | 'set'>;
  attachments: AttachmentStore;
  visionModels: VisionModels;
  toolCalls: Pick<ToolCallStore, 'get'>;
  approvals: Pick<ApprovalDesk, 'decide'>;
  /** Each tool says whether "Always allow" may apply to it. */
  tools: Pick<ToolRegistry, 'named'>;
  /** Gives the disk space of a deleted chat (its photos above all) back; see storage/free-space.ts. */
  freeSpace: Pick<FreeSpaceReclaimer, 'reclaimSoon'>;
  /** Names a new chat by its model once its first reply has ended. */
  titles?: Pick<ChatTitles, 'nameFromFirstExchange'>;
  /** How long a deleted chat can be restored (Undo) before it is removed for good; 20 s by default. */
  undoDeleteMs?: number;
}

/** The page offers Undo for 10 s (public/app.css, .undo-notice); a late tap still lands. */
const defaultUndoDeleteMs = 20_000;

export function createChatService(dependencies: ChatServiceDependencies) {
  const { store, hub, chatModel, replyRunner, attachments, visionModels, toolCalls, approvals, tools, freeSpace, settings } = dependencies;
  const undoDeleteMs = dependencies.undoDeleteMs ?? defaultUndoDeleteMs;
  /** One timer per deletion, each purging what is past its window then; stopped with the server. */
  const purgeTimers = new Set<NodeJS.Timeout>();

  /** Removes for good the chats deleted longer ago than the undo window (all of them with `all`); their space is given back soon after. */
  function purgeDeletedConversations(options: { all?: boolean } = {}): number {
    const purged = store.purgeDeletedConversations(options.all ? Number.MAX_SAFE_INTEGER : Date.now() - undoDeleteMs);
    if (purged > 0) freeSpace.reclaimSoon();
    return purged;
  }

  function purgeAfterUndoWindow(): void {
    const timer = setTimeout(() => {
      purgeTimers.delete(timer);
      purgeDeletedConversations();
    }, undoDeleteMs + 50);
    timer.unref();
    purgeTimers.add(timer);
  }

  /** The photos going with a message: all still unsent, not too many, and a model that can see them. */
  async function checkPhotos(ids: number[], model: string): Promise<void> {
    if (ids.length === 0) return;
    if (ids.length > photoLimits.perMessage) {
      throw new ChatInputError(`That is ${ids.length} photos; at most ${photoLimits.perMessage} can go with one message. Remove some.`);
    }
    if (attachments.listUnsent(ids).length !== ids.length) {
      throw new ChatInputError('A photo is no longer here (unsent photos are removed after a day, or it was already sent). Remove it and attach it again.');
    }
    await requireVision(model);
  }

  /** Refused, not dropped: a photo the model cannot see would leave the person thinking it did. */
  async function requireVision(model: string): Promise<void> {
    if (await visionModels.canSee(model)) return;
    const refusal = await visionModels.refusal(model);
    throw new ChatInputError(refusal.text, { ...plainNotice(refusal.text), ...(refusal.switchTo ? { switchModel: refusal.switchTo } : {}) });
  }

  /**
   * The model a new chat opens with: the one last picked or sent with, while it is still offered;
   * else OLLAMA_MODEL; else the first listed.
   */
  async function defaultModel(): Promise<string | undefined> {
    const remembered = settings.get(lastModelSetting);
    const listed = await chatModel.listModels().catch(() => undefined);
    if (remembered && listed?.includes(remembered)) return remembered;
    return dependencies.configuredModel || listed?.[0];
  }

  /** The person chose this model (picked it, or sent with it): the next new chat opens with it. */
  function rememberModel(model: string | undefined): void {
    if (model && model !== settings.get(lastModelSetting)) settings.set(lastModelSetting, model);
  }

  /** The message text, trimmed; empty only when photos go with it. */
  function checkText(raw: string, allowEmpty = false): string {
    const text = raw.trim();
    if (text.length === 0 && !allowEmpty) throw new ChatInputError('Type a message first.');
    if (text.length > maxMessageCharacters) {
      throw new ChatInputError(
        `That message is ${text.length.toLocaleString('en')} characters; the limit is ${maxMessageCharacters.toLocaleString('en')}. Shorten it or split it.`,
      );
    }
    return text;
  }

  /** A shown message of a conversation with no reply running: the only state in which the thread may change shape. */
  function changeableMessage(messageId: number): { message: StoredMessage; conversation: Conversation } {
    const message = store.getMessage(messageId);
    const conversation = message && store.getConversation(message.conversationId);
    if (!message || !conversation) throw new ChatInputError('That message no longer exists. Reload the page.');
    if (hub.active(conversation.id)) throw new ChatInputError('A reply is still being written. Wait for it or press Stop.');
    if (message.hidden) throw new ChatInputError('That message is an earlier version that is not shown now. Reload the page.');
    return { message, conversation };
  }

  /**
   * A change to a message whose turn carries photos needs a model that can see them. Asking the
   * model server takes a moment, in which a reply may have started from another device: the
   * message is checked again after.
   */
  async function requireVisionToChange(messageId: number, model: string, photoCount: number): Promise<void> {
    if (photoCount === 0) return;
    await requireVision(model);
    changeableMessage(messageId);
  }

  /** The model asked for (the picker), else the chat's; saved on the chat when it changes, and remembered for new chats. */
  function useModel(conversation: Conversation, requested: string | undefined): Conversation {
    rememberModel(requested);
    if (!requested || requested === conversation.model) return conversation;
    store.setConversationModel(conversation.id, requested);
    return { ...conversation, model: requested };
  }

  /** Starts a reply in a new assistant message after what the thread shows; pages re-render the thread. */
  function startReply(conversation: Conversation, assistantMessage: StoredMessage): void {
    hub.publish(conversation.id, { type: 'thread-changed' });
    hub.track(replyRunner.runTurn(conversation, assistantMessage));
  }

  function stop(conversationId: number): boolean {
    const reply = hub.active(conversationId);
    reply?.stop();
    return reply !== undefined;
  }

  return {
    defaultModel,

    /**
     * The person picked a model (in the picker, or by the one-tap switch a photo refusal offers):
     * remembered for new chats, and saved on the open chat, which keeps it from then on.
     */
    async chooseModel(request: { model: string; conversationId?: number | undefined }): Promise<void> {
      const listed = await chatModel.listModels().catch(() => [] as string[]);
      if (!listed.includes(request.model)) throw new ChatInputError(`The model "${request.model}" is not offered now. Reload the page to see the models there are.`);
      const conversation = request.conversationId === undefined ? undefined : store.getConversation(request.conversationId);
      if (conversation) useModel(conversation, request.model);
      else rememberModel(request.model);
    },

    /**
     * Replaces one of the person's messages with new text and answers it again. The old message
     * and everything after it are kept as an earlier version (‹ 1/2 › on the message).
     */
    async editMessage(request: { messageId: number; text: string; model?: string }): Promise<{ userMessage: StoredMessage; assistantMessage: StoredMessage }> {
      const found = changeableMessage(request.messageId);
      if (found.message.role !== 'user') throw new ChatInputError('Only your own messages can be edited.');
      // The photos of the edited message go with its new version.
      const photos = attachments.listForMessages([found.message.id]).get(found.message.id) ?? [];
      const text = checkText(request.text, photos.length > 0);
      await requireVisionToChange(found.message.id, request.model || found.conversation.model, photos.length);
      const conversation = useModel(found.conversation, request.model);
      const userMessage = store.branchFrom(conversation.id, found.message.id, 'user', text);
      attachments.copyToMessage(found.message.id, conversation.id, userMessage.id);
      const assistantMessage = store.addMessage(conversation.id, 'assistant', '', { status: 'streaming', model: conversation.model });
      startReply(conversation, assistantMessage);
      return { userMessage, assistantMessage };
    },

    /**
     * Writes any reply again (also the Retry of a failed one), as ChatGPT does: the reply and
     * every turn after it are kept as an earlier version (‹ 1/2 › on the reply), and a new reply
     * to the same message of the person streams in their place. `messageId` is any message of
     * that reply (a turn with tools has one per round), so a stale page cannot pick another turn.
     */
    async regenerate(request: { messageId: number; model?: string }): Promise<StoredMessage> {
      const found = changeableMessage(request.messageId);
      if (found.message.role !== 'assistant') throw new ChatInputError('Only a reply can be written again; edit your own messages instead.');
      const question = store.lastUserMessage(found.conversation.id, found.message.id);
      if (!question) throw new ChatInputError('That reply answers no message of yours, so it cannot be written again.');
      // A model that cannot see the question's photos would answer as if they were not there: refused before anything changes.
      const photos = attachments.listForMessages([question.id]).get(question.id) ?? [];
      await requireVisionToChange(request.messageId, request.model || found.conversation.model, photos.length);
      const conversation = useModel(found.conversation, request.model);
      // Every shown message after the question goes (ids grow down the thread), from this turn's first round on.
      const assistantMessage = store.branchFrom(conversation.id, question.id + 1, 'assistant', '', { status: 'streaming', model: conversation.model });
      startReply(conversation, assistantMessage);
      return assistantMessage;
    },

    /** Shows the previous or next version of a message (and the replies that went with it). */
    showVersion(request: { messageId: number; direction: VersionDirection }): void {
      const { message, conversation } = changeableMessage(request.messageId);
      const { ids, index } = store.versionsOf(message);
      const targetId = ids[index + (request.direction === 'earlier' ? -1 : 1)];
      if (targetId === undefined) throw new ChatInputError(`There is no ${request.direction} version of that message.`);
      store.showVersion(message.id, targetId);
      hub.publish(conversation.id, { type: 'thread-changed', fromId: message.parentId ?? targetId });
    },

    /** Saves the person's message first, then starts the reply in the background. */
    async sendMessage(request: SendRequest, beforeReply?: (conversation: Conversation, created: boolean) => void): Promise<SendResult> {
      const photoIds = request.attachmentIds ?? [];
      // Photos alone are a message too.
      const text = checkText(request.text, photoIds.length > 0);
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
          // Each server by name, with why it has nothing to offer (down, or no models).
          noModelNotice(await modelGroupsOf(chatModel)),
        );
      }
      await checkPhotos(photoIds, model);
      const created = !conversation;
      if (created) rememberModel(request.model);
      conversation = conversation
        ? useModel(conversation, model)
        : store.createConversation(text ? titleFromMessage(text) : photoIds.length > 1 ? 'Photos' : 'Photo', model);
      const userMessage = store.addMessage(conversation.id, 'user', text);
      attachments.linkToMessage(photoIds, conversation.id, userMessage.id);
      const assistantMessage = store.addMessage(conversation.id, 'assistant', '', { status: 'streaming', model });
      // The caller subscribes to a new conversation here, before anything is published.
      beforeReply?.(conversation, created);
      hub.publish(conversation.id, { type: 'message-added', messageId: userMessage.id });
      hub.publish(conversation.id, { type: 'message-added', messageId: assistantMessage.id });
      const turn = replyRunner.runTurn(conversation, assistantMessage, request.think === false ? { think: false } : {});
      hub.track(turn);
      // In the background, after the reply: the person reads the reply first, the title follows.
      const { titles } = dependencies;
      if (created && titles) hub.track(turn.then(() => titles.nameFromFirstExchange(conversation.id, userMessage.id), () => undefined));
      return { conversation, created, userMessage, assistantMessage };
    },

    stop,

    /**
     * The person's answer on an approval card. "Always" never applies to a tool that must always
     * ask (a memory update asks because outside text is in the chat): its card offers no box.
     */
    answerApproval(request: { toolCallId: number | undefined; decision: unknown; always: boolean }): void {
      const call = request.toolCallId === undefined ? undefined : toolCalls.get(request.toolCallId);
      const { decision } = request;
      if (!call || (decision !== 'approve' && decision !== 'deny')) throw new ChatInputError('That approval could not be read. Reload the page.');
      const alwaysAllow = request.always && tools.named(call.name)?.canAlwaysAllow !== false ? { toolName: call.name } : undefined;
      if (!approvals.decide(call.id, decision, alwaysAllow)) throw new ChatInputError('That action was already decided (or the reply ended). Nothing changed.');
    },

    /** Renames a chat; undefined when it no longer exists. */
    renameConversation(conversationId: number, title: unknown): { id: number; title: string } | undefined {
      const conversation = store.getConversation(conversationId);
      if (!conversation) return undefined;
      const checked = checkTitle(title);
      store.renameConversation(conversation.id, checked);
      return { id: conversation.id, title: checked };
    },

    /**
     * Deletes a chat, its reply stopped first: hidden at once from every list, search, page,
     * export and socket; restorable for the undo window, then removed for good and its disk
     * space given back. False when there is no such chat.
     */
    deleteConversation(conversationId: number): boolean {
      stop(conversationId);
      const deleted = store.softDeleteConversation(conversationId);
      if (deleted) purgeAfterUndoWindow();
      return deleted;
    },

    /** Undo: the chat deleted moments ago, back as it was (its place in the list too); undefined when too late. */
    restoreConversation(conversationId: number): Conversation | undefined {
      if (!store.restoreConversation(conversationId, Date.now() - undoDeleteMs)) return undefined;
      return store.getConversation(conversationId);
    },

    /** A chat deleted within the undo window (the page offers Undo for it), else undefined. */
    restorableConversation(conversationId: number): Conversation | undefined {
      return store.getDeletedConversation(conversationId, Date.now() - undoDeleteMs);
    },

    purgeDeletedConversations,

    /** Stops the purge timers (the server is stopping); what they would purge goes at the next start. */
    stopPurging(): void {
      for (const timer of purgeTimers) clearTimeout(timer);
      purgeTimers.clear();
    },
  };
}

export type ChatService = ReturnType<typeof createChatService>;
