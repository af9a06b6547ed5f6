import type { StoredToolCall } from '../../storage/tool-call-store.js';
import { stoppedBeforeRunning, stoppedWhileRunning } from '../../engine/tools/tool-call-runner.js';
import { wordsFor, type Tool } from '../../engine/tools/tool.js';

/** The reason a call failed, without the runner's "Error from name:" prefix: one line, short. */
function failureReason(name: string, result: string): string {
  const line = result.replace(`Error from ${name}: `, '').split('\n', 1)[0]!.trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/** A tool's summary of its result, kept to one short line (it may quote outside text: the template escapes it). */
function summaryOf(tool: Pick<Tool, 'summarize'> | undefined, result: string): string | undefined {
  const summary = tool?.summarize(result)?.replace(/\s+/g, ' ').trim();
  if (!summary) return undefined;
  return summary.length > 80 ? `${summary.slice(0, 79)}…` : summary;
}

/**
 * What happened, in plain words, for the card's headline, in the tool's own words ("Searched
 * your email — 3 results"); `tool` is undefined for a tool no longer installed. The result is
 * untrusted text: the template escapes it.
 */
export function describeToolCall(
  call: Pick<StoredToolCall, 'name' | 'status' | 'result'>,
  tool: (Pick<Tool, 'words' | 'summarize'> & Partial<Pick<Tool, 'explainFailure'>>) | undefined,
): string {
  const words = wordsFor(call.name, tool);
  switch (call.status) {
    case 'running':
      return `${words.doing}…`;
    case 'awaiting-approval':
      return `Wants to ${words.act} — allow?`;
    case 'done': {
      const summary = summaryOf(tool, call.result);
      return summary ? `${words.done} — ${summary}` : words.done;
    }
    case 'failed': {
      // A failure explained to the model ("Ask the person to run…") is said in the person's words
      // (no Google account is connected); the result itself stays under Details.
      const explained = tool?.explainFailure?.(call.result);
      if (explained) return `Could not ${words.act}: ${explained}`;
      const reason = failureReason(call.name, call.result);
      if (reason === stoppedWhileRunning) return `Stopped — ${words.doing.charAt(0).toLowerCase()}${words.doing.slice(1)} was cut short`;
      return reason ? `Could not ${words.act}: ${reason}` : `Could not ${words.act}`;
    }
    case 'denied':
      // The runner refuses by itself a call copied from outside text; otherwise the person said no.
      if (call.result.startsWith('Refused:')) return 'Not run — it repeated text from an email or tool result';
      return call.result === stoppedBeforeRunning ? 'Not run — you pressed Stop' : 'Not run — you said no';
    case 'expired':
      return 'Not run — no answer in time';
  }
}
