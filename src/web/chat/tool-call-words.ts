import type { StoredToolCall } from '../../storage/tool-call-store.js';
import { stoppedBeforeRunning, stoppedWhileRunning } from '../../engine/tools/tool-call-runner.js';

/** How one tool's work reads in a sentence: "Searching your email…", "Searched your email", "Could not search your email". */
interface ToolPhrases {
  doing: string;
  did: string;
  /** After "Could not " and "Wants to ". */
  act: string;
  /** Counts what a finished call found, from its result text ("3 results"); undefined when it cannot tell. */
  count?: (result: string) => string | undefined;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** search_emails starts its result with "3 messages for …" or "No messages match …". */
function countEmailResults(result: string): string | undefined {
  if (/^No messages match/.test(result)) return 'no results';
  const found = /^(\d+) messages? for/.exec(result);
  return found ? plural(Number(found[1]), 'result') : undefined;
}

const builtInPhrases: Record<string, ToolPhrases> = {
  calculator: { doing: 'Calculating', did: 'Used the calculator', act: 'calculate' },
  current_time: { doing: 'Checking the time', did: 'Checked the current time', act: 'check the time' },
  search_emails: { doing: 'Searching your email', did: 'Searched your email', act: 'search your email', count: countEmailResults },
  read_email: { doing: 'Reading an email', did: 'Read an email', act: 'read an email' },
  create_draft: { doing: 'Creating a draft', did: 'Created a draft', act: 'create a draft' },
  list_email_accounts: { doing: 'Listing your email accounts', did: 'Listed your email accounts', act: 'list your email accounts' },
  list_events: { doing: 'Checking your calendar', did: 'Checked your calendar', act: 'check your calendar' },
  find_free_time: { doing: 'Looking for free time in your calendar', did: 'Looked for free time in your calendar', act: 'look for free time in your calendar' },
  memory_update: { doing: 'Updating your memory', did: 'Updated your memory', act: 'update your memory' },
  find_tools: { doing: 'Looking for a tool', did: 'Looked for a tool', act: 'look for a tool' },
};

/** MCP tools ("files.read_text_file") and anything unknown are named as they are. */
function phrasesFor(name: string): ToolPhrases {
  return builtInPhrases[name] ?? { doing: `Using ${name}`, did: `Used ${name}`, act: `use ${name}` };
}

/** The reason a call failed, without the runner's "Error from name:" prefix: one line, short. */
function failureReason(name: string, result: string): string {
  const line = result.replace(`Error from ${name}: `, '').split('\n', 1)[0]!.trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/** What happened, in plain words, for the card's headline. The result is untrusted text: the template escapes it. */
export function describeToolCall(call: Pick<StoredToolCall, 'name' | 'status' | 'result'>): string {
  const phrases = phrasesFor(call.name);
  switch (call.status) {
    case 'running':
      return `${phrases.doing}…`;
    case 'awaiting-approval':
      return `Wants to ${phrases.act} — allow?`;
    case 'done': {
      const count = phrases.count?.(call.result);
      return count ? `${phrases.did} — ${count}` : phrases.did;
    }
    case 'failed': {
      const reason = failureReason(call.name, call.result);
      if (reason === stoppedWhileRunning) return `Stopped — ${phrases.doing.charAt(0).toLowerCase()}${phrases.doing.slice(1)} was cut short`;
      return reason ? `Could not ${phrases.act}: ${reason}` : `Could not ${phrases.act}`;
    }
    case 'denied':
      // The runner refuses by itself a call copied from outside text; otherwise the person said no.
      if (call.result.startsWith('Refused:')) return 'Not run — it repeated text from an email or tool result';
      return call.result === stoppedBeforeRunning ? 'Not run — you pressed Stop' : 'Not run — you said no';
    case 'expired':
      return 'Not run — no answer in time';
  }
}
