import { Tool, ToolError, type ApprovalNeed, type CallSituation, type ToolRunContext, type ToolServices } from '../../engine/tools/tool.js';
import { describeMemoryChange } from './memory-diff.js';
import type { MemoryFile } from './memory-file.js';

export const memoryUpdateToolName = 'memory_update';

/**
 * [MEMORY_UPDATE]…[/MEMORY_UPDATE] runs through the same engine as every tool: recorded on a
 * card, refused when copied from a result, and waiting for approval when outside text (an email,
 * a calendar, an MCP server's answer or its tools' descriptions) has reached the model in the
 * conversation, since that text may have steered it.
 */
export class MemoryUpdateTool extends Tool {
  readonly name = memoryUpdateToolName;
  readonly description = 'Replaces the long-term memory with the complete new text.';
  readonly examples = ['[MEMORY_UPDATE]\n- one durable fact per line\n[/MEMORY_UPDATE]'];
  override readonly readsOutsideText = false;
  override readonly source = 'Memory';

  constructor(
    services: ToolServices,
    private readonly memory: MemoryFile,
  ) {
    super(services);
  }

  override async approvalFor(params: string, situation: CallSituation): Promise<ApprovalNeed> {
    // One over the cap is not worth asking about: the write refuses it and the model condenses.
    if (!situation.outsideTextSeen || Buffer.byteLength(params, 'utf8') > this.memory.maxBytes) return { ask: false, canAlwaysAllow: false };
    try {
      return { ask: true, preview: describeMemoryChange((await this.memory.read()).content, params), canAlwaysAllow: false };
    } catch {
      // An unreadable file: still ask, and the write then reports the file's own problem.
      return { ask: true, canAlwaysAllow: false };
    }
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const written = await this.memory.write(params, 'assistant', context.turn.memoryRevision);
    if (!written.ok) {
      const current = written.reason === 'changed' ? `\nCurrent memory:\n${written.snapshot.content}` : '';
      throw new ToolError(written.message + current);
    }
    context.turn.memoryRevision = written.snapshot.revision;
    return `Memory updated (${written.snapshot.bytes} of ${written.snapshot.maxBytes} bytes).`;
  }
}
