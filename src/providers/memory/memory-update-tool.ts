import { parseLooseJson } from '../../engine/tools/tool-params.js';
import { Tool, ToolError, type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolServices, type ToolWords } from '../../engine/tools/tool.js';
import { describeMemoryChange } from './memory-diff.js';
import type { MemoryFile } from './memory-file.js';

// What one reply's memory updates share: each write says which revision it replaces.
declare module '../../engine/tools/tool.js' {
  interface TurnState {
    /** The memory revision the model saw, moved on by its own writes. */
    memoryRevision: string;
  }
}

/** The new memory: the text between the tags, or `content` when the arguments came as a JSON object. */
function newMemoryText(params: string): string {
  if (!params.trimStart().startsWith('{')) return params;
  const value = parseLooseJson(params.trim());
  const isArguments = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1;
  const content = isArguments ? (value as Record<string, unknown>).content : undefined;
  return typeof content === 'string' ? content : params;
}

/**
 * [MEMORY_UPDATE]…[/MEMORY_UPDATE] runs through the same engine as every tool: recorded on a
 * card, refused when copied from a result, and waiting for approval when outside text (an email,
 * a calendar, an MCP server's answer or its tools' descriptions) has reached the model in the
 * conversation, since that text may have steered it. The model calls it with that tag, never
 * by name; the memory is in the next system prompt, so a success needs no answer.
 */
export class MemoryUpdateTool extends Tool {
  readonly name = 'memory_update';
  readonly description = 'Replaces the long-term memory with the complete new text.';
  readonly examples = ['[MEMORY_UPDATE]\n- one durable fact per line\n[/MEMORY_UPDATE]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: { content: { type: 'string', description: 'The complete new memory, in Markdown: one lasting fact per line. It replaces the old memory.' } },
    required: ['content'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = {
    doing: 'Updating your memory',
    done: 'Updated your memory',
    act: 'update your memory',
    asks: "Outside text (an email, a calendar or another tool's result) is in this chat. Save this change to your memory?",
  };
  override readonly calledWith = 'memory';
  // It asks because outside text may have steered the model: "always" would defeat that.
  override readonly canAlwaysAllow = false;
  override readonly resultGoesToHistory = false;
  override readonly readsOutsideText = false;
  override readonly source = 'Memory';

  constructor(
    services: ToolServices,
    private readonly memory: MemoryFile,
  ) {
    super(services);
  }

  override async approvalFor(params: string, situation: CallSituation): Promise<ApprovalNeed> {
    const text = newMemoryText(params);
    // One over the cap is not worth asking about: the write refuses it and the model condenses.
    if (!situation.outsideTextSeen || Buffer.byteLength(text, 'utf8') > this.memory.maxBytes) return { ask: false };
    try {
      return { ask: true, preview: await describeMemoryChange((await this.memory.read()).content, text) };
    } catch {
      // An unreadable file: still ask, and the write then reports the file's own problem.
      return { ask: true };
    }
  }

  /** "Memory updated (120 of 2048 bytes)." → "120 of 2,048 bytes". */
  override summarize(result: string): string | undefined {
    const sizes = /^Memory updated \((\d+) of (\d+) bytes\)/.exec(result);
    return sizes ? `${Number(sizes[1]).toLocaleString('en')} of ${Number(sizes[2]).toLocaleString('en')} bytes` : undefined;
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const written = await this.memory.write(newMemoryText(params), 'assistant', context.turn.memoryRevision);
    if (!written.ok) {
      const current = written.reason === 'changed' ? `\nCurrent memory:\n${written.snapshot.content}` : '';
      throw new ToolError(written.message + current);
    }
    context.turn.memoryRevision = written.snapshot.revision;
    return `Memory updated (${written.snapshot.bytes} of ${written.snapshot.maxBytes} bytes).`;
  }
}
