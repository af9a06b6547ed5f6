import type { ModelGroup } from '../engine/llm/chat-model.js';
import { failureHeadline, retryMayHelp, type LlmError } from '../engine/llm/llm-error.js';

/**
 * An error as the chat shows it (views/partials/chat-error.eta): a headline saying what happened
 * and what to do, the exact words one tap away under Details, and whether a Retry link helps.
 * The headline is decided where the error is understood (llm-error.ts for model servers); the
 * template only renders it.
 */
export interface ErrorNotice {
  headline: string;
  details: string;
  retry: boolean;
  /** A model to switch this chat to in one tap (a photo refused by a model that cannot see). */
  switchModel?: { value: string; name: string };
}

/**
 * A failed reply keeps its notice in the message's `error` text: the headline, a blank line, the
 * exact words. Text without a blank line (older rows, the runner's own one-line errors) is all headline.
 */
const detailsSeparator = '\n\n';

export function storedErrorText(notice: ErrorNotice): string {
  return notice.details ? `${notice.headline}${detailsSeparator}${notice.details}` : notice.headline;
}

export function readStoredError(text: string): ErrorNotice {
  const cut = text.indexOf(detailsSeparator);
  if (cut === -1) return { headline: text, details: '', retry: false };
  return { headline: text.slice(0, cut), details: text.slice(cut + detailsSeparator.length), retry: false };
}

export function llmErrorNotice(error: LlmError): ErrorNotice {
  return { headline: error.headline, details: error.message, retry: retryMayHelp(error.failure) };
}

export function plainNotice(text: string, retry = false): ErrorNotice {
  return { headline: text, details: '', retry };
}

/** When no model at all can be picked: each server says why, by name. */
export function noModelNotice(groups: ModelGroup[]): ErrorNotice {
  const troubled = groups.filter((group) => group.problem);
  const headlines = troubled.map((group) =>
    group.unreachable
      ? failureHeadline(group.name, group.failure ?? 'unreachable')
      : group.backendId === 'ollama'
        ? 'No models installed. Install one in Ollama (for example: ollama pull llama3.2), then retry.'
        : `${group.name} has no models loaded. Load one there, then retry.`,
  );
  return {
    headline: headlines.join(' ') || 'No model is available. Start a model server, then retry.',
    details: troubled.map((group) => group.problem).join('\n'),
    retry: true,
  };
}
