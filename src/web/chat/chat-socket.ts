import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import type { WebSocket } from 'ws';
import type { ConversationStore } from '../../storage/conversation-store.js';
import { parseAttachmentIds } from './attachment-ids.js';
import type { ChatReader } from './chat-reader.js';
import { isAuthenticated } from '../auth/auth-guard.js';
import { endSocketSession, type SessionSockets } from '../auth/session-sockets.js';
import type { SessionSliding } from '../auth/session-lifetime.js';
import { ChatInputError } from '../../replies/chat-input-error.js';
import type { ChatService } from '../../replies/chat-service.js';
import { spokenText, toHistoryItemView, type ChatView } from './chat-view.js';
import { historyPage } from './history-page.js';
import type { ReplyEvent, ReplyHub } from '../../replies/reply-hub.js';
import { createSocketSender } from './socket-sender.js';
import { escapeText } from '../../engine/markdown/render-markdown.js';
import { plainNotice, type ErrorNotice } from '../../replies/error-notice.js';
import { fields, optionalRecordId, text } from '../http/request-schemas.js';
import { personalTime } from '../http/format-when.js';
import { readSocketCommand, type SocketCommand } from './socket-commands.js';

export interface ChatSocketDependencies {
  chatService: ChatService;
  /** Read only: every change goes through the chat service. */
  store: Pick<ConversationStore, 'getConversation' | 'getMessage' | 'listConversations'>;
  hub: ReplyHub;
  view: ChatView;
  reader: ChatReader;
  sessionSockets: SessionSockets;
  /** Each message the person sends extends their login, as a page request does. */
  sessionSliding: SessionSliding;
  /** How long a new chat's sidebar waits for the reply's first words (1 s). */
  sidebarWaitMs?: number;
}

type CommandOf<Type extends SocketCommand['type']> = Extract<SocketCommand, { type: Type }>;

/** What the page says when it opens the socket: the chat it shows and its newest message shown. */
interface SocketQuery {
  conversation?: number | '';
  after?: number | '';
  /** 'partial': the page shows a window away from the newest end (opened at a search match). */
  window?: string;
}

const socketQuery = fields({ conversation: optionalRecordId('conversation'), after: optionalRecordId('newest shown message'), window: text('window') });

/** One socket per open chat page. It follows one conversation at a time. */
export function registerChatSocket(app: FastifyInstance, dependencies: ChatSocketDependencies): void {
  const { chatService, store, hub, view, sessionSockets, sessionSliding, sidebarWaitMs = 1000 } = dependencies;

  app.get('/ws', { websocket: true, schema: { querystring: socketQuery } }, (socket: WebSocket, request: FastifyRequest<{ Querystring: SocketQuery }>) => {
    const sender = createSocketSender(socket);
    // The person's time zone, as their page said it when it connected (its cookie): message times are written in it.
    const time = personalTime(request);
    const reader = dependencies.reader.inZone(time);
    sessionSockets.add(request.session.sessionId, socket);
    let conversationId: number | undefined;
    let unsubscribe: (() => void) | undefined;
    const log = request.log;

    const showError = (notice: ErrorNotice | string) => sender.swap('#chat-thread', 'beforeend', view.chatError(notice));
    // While this page's own version switch runs: the first message it shows, so the thread it gets back keeps its earlier pages.
    let switchShownFrom: number | undefined;
    // While this page's own edit or regenerate runs: the thread it gets back shows its end, where the new reply streams.
    let followThreadEnd = false;

    // A new chat's sidebar item is not needed to read the reply: it goes after the reply's first
    // text (or whatever else comes first, or after a second), so a phone, busy laying out the
    // new messages, shows the first words sooner.
    let afterFirstText: (() => void) | undefined;
    let afterFirstTextTimer: NodeJS.Timeout | undefined;
    const sendAfterFirstText = () => {
      clearTimeout(afterFirstTextTimer);
      const sendLater = afterFirstText;
      afterFirstText = undefined;
      sendLater?.();
    };

    // The message a reply last finished: said once, through #chat-status, when the turn ends.
    let lastFinished: number | undefined;

    const onEvent = (event: ReplyEvent) => {
      if (afterFirstText && event.type !== 'message-added' && event.type !== 'delta' && event.type !== 'reply-started') sendAfterFirstText();
      switch (event.type) {
        case 'delta':
          sender.appendText(`#message-${event.messageId}-thinking`, event.thinking);
          sender.appendText(`#message-${event.messageId}-tail`, event.content);
          if (afterFirstText && (event.thinking || event.content)) sendAfterFirstText();
          break;
        case 'blocks-formatted':
          // The finished blocks as HTML in place of their text; the open block's text stays text.
          sender.swap(`#message-${event.messageId}-tail`, 'outerHTML', event.html + view.streamTail(event.messageId, event.tail));
          break;
        case 'message-added': {
          const html = reader.messageHtml(event.messageId);
          if (html) sender.swap('#chat-thread', 'beforeend', html);
          break;
        }
        case 'message-updated': {
          lastFinished = event.messageId;
          const html = reader.messageHtml(event.messageId);
          if (html) sender.swap(`#message-${event.messageId}`, 'outerHTML', html);
          break;
        }
        case 'tool-call-added': {
          const html = reader.toolCardHtml(event.toolCallId);
          if (html) sender.swap(`#message-${event.messageId}-tools`, 'beforeend', html);
          break;
        }
        case 'tool-call-updated': {
          const html = reader.toolCardHtml(event.toolCallId);
          if (html) sender.swap(`#tool-call-${event.toolCallId}`, 'outerHTML', html);
          break;
        }
        case 'notice':
          showError(event.text);
          break;
        case 'thread-changed':
          if (conversationId !== undefined) sender.swap('#chat-thread', followThreadEnd ? 'innerHTML scroll:bottom' : 'innerHTML', reader.threadHtml(conversationId, event.fromId, switchShownFrom));
          break;
        case 'reply-started':
          sender.event('reply-state', { conversationId, running: true });
          break;
        case 'reply-finished': {
          const message = lastFinished === undefined ? undefined : store.getMessage(lastFinished);
          const said = message ? spokenText(message.html ?? escapeText(message.content), 2000) : '';
          sender.swap('#chat-status', 'innerHTML', said ? `Reply finished: ${said}` : 'Reply finished');
          sender.event('reply-finished', { conversationId });
          break;
        }
        case 'title-changed': {
          // The model named the chat: its sidebar item and the header say so; the page's script
          // may also update the tab's title and the rename field from the data event.
          const conversation = conversationId === undefined ? undefined : store.getConversation(conversationId);
          if (!conversation) break;
          sender.swap(`#history-item-${conversation.id}`, 'outerHTML', view.historyItem(toHistoryItemView(conversation, conversationId, time)));
          sender.swap('#chat-title-text', 'innerHTML', escapeText(conversation.title));
          sender.event('title-changed', { conversationId: conversation.id, title: conversation.title });
          break;
        }
      }
    };

    const follow = (id: number) => {
      unsubscribe?.();
      conversationId = id;
      unsubscribe = hub.subscribe(id, onEvent);
    };

    // Catch up: a reloaded page or a phone waking up gets the conversation as it is now.
    const query = request.query;
    const requested = query.conversation || undefined;
    if (requested !== undefined && store.getConversation(requested)) {
      follow(requested);
      // Whether a turn is running (tool rounds included): a page back from sleep may have missed its end.
      sender.event('reply-state', { conversationId: requested, running: hub.active(requested) !== undefined });
      // A page showing a window away from the newest end (opened at a search match) loads newer
      // messages itself, page by page: catching up would pour all of them into it.
      const partialWindow = query.window === 'partial';
      const missed = partialWindow ? { items: [] } : reader.catchUp(requested, query.after || undefined);
      if ('threadHtml' in missed) sender.swap('#chat-thread', 'innerHTML', missed.threadHtml);
      else {
        for (const item of missed.items) {
          if (item.replace) sender.swap(`#message-${item.messageId}`, 'outerHTML', item.html);
          else sender.swap('#chat-thread', 'beforeend', item.html);
        }
      }
    }

    async function handleSend(command: CommandOf<'send'>): Promise<void> {
      try {
        await chatService.sendMessage(
          {
            conversationId: command.conversationId || undefined,
            text: command.message,
            model: command.model || undefined,
            attachmentIds: parseAttachmentIds(command.attachments),
            ...(command.think === 'off' ? { think: false } : {}),
          },
          (conversation, created) => {
            if (conversation.id !== conversationId) follow(conversation.id);
            sender.swap('#chat-empty', 'delete', '');
            sender.event('message-accepted', { conversationId: conversation.id });
            if (created) {
              // Its id in the form and the tab's title now; its address is the page's to set.
              sender.swap('#conversation-id', 'outerHTML', view.conversationField(conversation.id));
              sender.swap('title', 'innerHTML', escapeText(`${conversation.title} · Hearth`));
              sender.event('conversation-started', { conversationId: conversation.id, url: `/c/${conversation.id}` });
              // The sidebar with it under Today, marked current, the header's title (now renamable) and its
              // ⋯ menu: one frame, after the reply's first words.
              const { items, more } = historyPage(store, time, conversation.id);
              const historyList = view.historyList(items, '', { more });
              const titleArea = view.chatTitle({ title: conversation.title, conversationId: conversation.id });
              const menuArea = view.chatMenu(conversation.id);
              sendAfterFirstText();
              afterFirstText = () => {
                sender.swap('#history-list', 'innerHTML', historyList);
                sender.swap('#chat-title-area', 'outerHTML', titleArea);
                sender.swap('#chat-menu-area', 'outerHTML', menuArea);
              };
              afterFirstTextTimer = setTimeout(sendAfterFirstText, sidebarWaitMs);
            }
          },
        );
      } catch (error) {
        if (error instanceof ChatInputError) showError(error.notice ?? error.message);
        else {
          log.error({ err: error }, 'sending a message failed');
          showError(plainNotice('The message could not be saved. Nothing was sent; try again.', true));
        }
      }
    }

    /** Edit, regenerate (Retry) and version switches: each checked and done by chat-service. */
    async function handleThreadCommand(command: CommandOf<'edit' | 'regenerate' | 'version'>): Promise<void> {
      const { messageId } = command;
      const message = store.getMessage(messageId);
      try {
        // The page acts on the conversation it shows; follow it so the new thread comes back here.
        if (message && message.conversationId !== conversationId) follow(message.conversationId);
        if (command.type === 'edit' || command.type === 'regenerate') {
          // Both publish the new thread before they return, to this page among others.
          followThreadEnd = true;
          try {
            if (command.type === 'edit') await chatService.editMessage({ messageId, text: command.message, model: command.model || undefined });
            else await chatService.regenerate({ messageId, model: command.model || undefined });
          } finally {
            followThreadEnd = false;
          }
        } else {
          // showVersion publishes the new thread synchronously, to this page among others.
          switchShownFrom = command.shownFrom || undefined;
          try {
            chatService.showVersion({ messageId, direction: command.direction });
          } finally {
            switchShownFrom = undefined;
          }
        }
      } catch (error) {
        if (error instanceof ChatInputError) showError(error.notice ?? error.message);
        else {
          log.error({ err: error }, `${command.type} failed`);
          showError('That could not be done. Nothing changed; try again.');
        }
      }
    }

    function handleApproval(command: CommandOf<'approval'>): void {
      try {
        chatService.answerApproval({ toolCallId: command.toolCallId, decision: command.decision, always: command.always === 'yes' });
      } catch (error) {
        if (!(error instanceof ChatInputError)) throw error;
        showError(error.message);
      }
    }

    socket.on('message', (data: Buffer, isBinary: boolean) => {
      // The login may have expired while the page stayed open.
      if (!isAuthenticated(request)) return endSocketSession(socket, 'expired');
      sessionSliding.use(request.session.sessionId, request.session.loggedInAt);
      const { command, problem } = readSocketCommand(data, isBinary);
      if (problem !== undefined) return showError(problem);
      switch (command.type) {
        case 'send':
          return void handleSend(command);
        case 'edit':
        case 'regenerate':
        case 'version':
          return void handleThreadCommand(command);
        case 'approval':
          return handleApproval(command);
        case 'stop': {
          const target = command.conversationId || conversationId;
          if (target !== undefined) chatService.stop(target);
          return;
        }
      }
    });

    socket.on('close', () => {
      clearTimeout(afterFirstTextTimer);
      afterFirstText = undefined;
      unsubscribe?.();
      sender.close();
    });
  });
}
