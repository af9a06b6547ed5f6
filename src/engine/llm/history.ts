import type { ChatTurn } from './chat-model.js';

/** About 3.5 characters a token for English: good enough to stay under the limit. */
export const charactersPerToken = 3.5;

/** A rough token count of one turn's text. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / charactersPerToken) + 4;

/**
 * What one photo costs a vision model, roughly: from 256 tokens (gemma3) to about 2,500 (qwen2.5vl
 * at 1,600 px). Counted so a chat with photos still leaves room for the reply.
 */
export const imageTokens = 1000;

const turnTokens = (turn: ChatTurn): number =>
  estimateTokens(turn.content) + (turn.images?.length ?? 0) * imageTokens + (turn.toolCalls ?? []).reduce((sum, call) => sum + estimateTokens(call.name + call.arguments), 0);

/**
 * Keeps the system prompt and the newest turns that fit the context window, leaving room for
 * the reply. The newest turn is always kept, cut from the front if it alone is too long.
 */
export function fitToContext(system: ChatTurn, turns: ChatTurn[], contextTokens: number, replyTokens: number): ChatTurn[] {
  let budget = contextTokens - replyTokens - estimateTokens(system.content);
  const kept: ChatTurn[] = [];
  for (let index = turns.length - 1; index >= 0; index -= 1) {
    const turn = turns[index]!;
    const cost = turnTokens(turn);
    if (cost > budget) {
      if (kept.length === 0) {
        const characters = Math.max(0, Math.floor((budget - 4 - (turn.images?.length ?? 0) * imageTokens) * charactersPerToken));
        kept.unshift({ ...turn, content: turn.content.slice(-characters) });
      }
      break;
    }
    budget -= cost;
    kept.unshift(turn);
  }
  // A conversation sent to a model should start with a user turn.
  while (kept.length > 1 && kept[0]!.role !== 'user') kept.shift();
  return [system, ...kept];
}
