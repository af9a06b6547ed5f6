import type { ChatModel, ChatTurn } from '../engine/llm/chat-model.js';
import { ThinkTagSplitter } from '../engine/llm/think-tag-splitter.js';
import type { ConversationStore } from '../storage/conversation-store.js';
import type { ReplyHub } from './reply-hub.js';

/*
 * A new chat is named by its own model from its first exchange, in the background once the first
 * reply has ended: "Bread rising in a cold kitchen" instead of the first message cut off. What the
 * model writes is untrusted: only a few hundred characters are read, and what is kept is one line
 * of plain words. The person's own title always wins (the store keeps it out), and a model that
 * fails leaves the first-message title in place.
 */

/** The instructions start with this, so the test stand-ins can tell a title request from a reply. */
export const titleInstructionsStart = 'Name this chat.';

const titleInstructions = `${titleInstructionsStart} Write a short title for the conversation below: at most 6 words, in the language of the conversation, plain words only — no quotes, no Markdown, no ending full stop. Answer with the title alone.`;

export const maxTitleWords = 6;
const maxTitleLength = 60;
/** Each side of the exchange shown to the model: enough to name it, not a long prompt. */
const excerptCharacters = 1500;
/** The model's answer is read up to this much; the rest is never looked at. */
const maxAnswerCharacters = 300;
/** Reasoning is read and dropped up to this much: a thinking model that thinks longer gives no title. */
const maxThinkingCharacters = 4000;
const titleTimeoutMs = 60_000;

/**
 * One line of plain words from what a model wrote: reasoning, tags, Markdown, quotes, a "Title:"
 * label and a closing full stop go; at most 6 words and 60 characters are kept. Empty when
 * nothing is left.
 */
export function cleanTitle(raw: string): string {
  const withoutReasoning = raw.replace(/<think>[\s\S]*?(<\/think>|$)/gi, ' ');
  const line =
    withoutReasoning
      .replace(/<[^>]*>?/g, ' ')
      .split(/\r?\n/)
      .map((text) => text.trim())
      .find((text) => text.length > 0) ?? '';
  const plain = line
    .replace(/\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1') // [words](link), a link with brackets in it too
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/^(#+|>+|[-*+•]|\d+[.)])\s+/u, '')
    .replace(/^\s*(chat\s+)?title\s*[:：-]\s*/i, '')
    .replace(/[*_`~#"“”„«»‹›]/g, '')
    .replace(/^['‘’]+|['‘’]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;:!—–-]+$/u, '')
    .trim();
  let words = plain.split(' ').filter(Boolean).slice(0, maxTitleWords).join(' ');
  while ([...words].length > maxTitleLength && words.includes(' ')) words = words.slice(0, words.lastIndexOf(' '));
  return [...words].slice(0, maxTitleLength).join('').trim();
}

export interface ChatTitlesDependencies {
  chatModel: ChatModel;
  store: Pick<ConversationStore, 'getConversation' | 'listMessagesFrom' | 'setAutomaticTitle'>;
  hub: ReplyHub;
  /** How many tokens of context the model runs with for this chat's replies: the same, so Ollama does not reload it. */
  contextTokensFor: (model: string) => Promise<number>;
  logger?: { debug(object: object, message: string): void };
}

export function createChatTitles(dependencies: ChatTitlesDependencies) {
  const { chatModel, store, hub } = dependencies;
  // Shutting down: a title being asked for is given up, so the server need not wait for the model.
  const stopping = new AbortController();

  /** The first exchange as the model should read it: the person's message and the reply's text. */
  function firstExchange(conversationId: number, firstMessageId: number): ChatTurn[] | undefined {
    const messages = store.listMessagesFrom(conversationId, firstMessageId, 20);
    const question = messages[0];
    if (!question || question.role !== 'user') return undefined;
    const replies: string[] = [];
    for (const message of messages.slice(1)) {
      if (message.role === 'user') break;
      if (message.role === 'assistant' && message.content.trim()) replies.push(message.content.trim());
    }
    const reply = replies.join('\n\n');
    // A photo alone names nothing, and a failed reply leaves too little to go on.
    if (!question.content.trim() || !reply) return undefined;
    return [
      { role: 'system', content: titleInstructions },
      { role: 'user', content: question.content.slice(0, excerptCharacters) },
      { role: 'assistant', content: reply.slice(0, excerptCharacters) },
      { role: 'user', content: 'Now the title for this chat, at most 6 words.' },
    ];
  }

  /** The model's answer, read only up to a few hundred characters. */
  async function askModel(model: string, messages: ChatTurn[]): Promise<string> {
    const signal = AbortSignal.any([AbortSignal.timeout(titleTimeoutMs), stopping.signal]);
    const stream = await chatModel.streamReply({ model, messages, contextTokens: await dependencies.contextTokensFor(model), signal });
    // Reasoning written inline (<think>…</think>) is counted as thinking, as the reply itself does.
    const splitter = new ThinkTagSplitter();
    let answer = '';
    let thinking = 0;
    try {
      for await (const chunk of stream) {
        const split = splitter.push(chunk.content);
        answer += split.content;
        thinking += chunk.thinking.length + split.thinking.length;
        // Stop reading: the first line is all that is kept.
        if (answer.length >= maxAnswerCharacters || thinking >= maxThinkingCharacters || /\S[^\n]*\n/.test(answer)) break;
      }
      answer += splitter.finish().content;
    } finally {
      stream.abort();
    }
    return answer.slice(0, maxAnswerCharacters);
  }

  return {
    /**
     * Names a new chat from its first exchange (its first message `firstMessageId`); resolves
     * when done, whatever happens. Sends the pages following the chat the new title.
     */
    async nameFromFirstExchange(conversationId: number, firstMessageId: number): Promise<void> {
      if (stopping.signal.aborted) return;
      try {
        const conversation = store.getConversation(conversationId);
        const messages = conversation && firstExchange(conversationId, firstMessageId);
        if (!conversation || !messages) return;
        const title = cleanTitle(await askModel(conversation.model, messages));
        if (!title || title === conversation.title || stopping.signal.aborted) return;
        // Not when the person named the chat meanwhile (or it was deleted).
        if (!store.setAutomaticTitle(conversationId, title)) return;
        hub.publish(conversationId, { type: 'title-changed', title });
      } catch (error) {
        dependencies.logger?.debug({ err: error, conversationId }, 'a chat could not be named by its model; it keeps its first message as its title');
      }
    },

    /** Gives up titles being asked for (shutdown); none is asked for after. */
    stop(): void {
      stopping.abort();
    },
  };
}

export type ChatTitles = ReturnType<typeof createChatTitles>;
