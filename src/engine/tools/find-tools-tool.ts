import { field, parseToolParams } from './tool-params.js';
import { Tool, type ToolOutput, type ToolParameters, type ToolServices, type ToolWords } from './tool.js';
import { describeTool, findToolsName, type ToolRegistry } from './tool-registry.js';

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** How many tools one search describes in full: enough to choose from, few enough to read. */
const maximumMatches = 5;

/**
 * Finds tools by what they do, for the tools the system prompt had no room to describe:
 * [TOOL:find_tools]turn off lights[/TOOL] returns the best matches with how to call them.
 * Its answer is Hearth's own text, except where it names or describes an MCP tool: the server
 * wrote those words, so that answer counts as outside text (memory updates ask after it).
 */
export class FindToolsTool extends Tool {
  readonly name = findToolsName;
  readonly description = 'Finds more tools by what they do; returns how to call the best matches. Use it when no listed tool fits.';
  readonly examples = ['[TOOL:find_tools]calendar events[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: { query: { type: 'string', description: 'What the tool should do, in a few words ("turn off lights").' } },
    required: ['query'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Looking for a tool', done: 'Looked for a tool', act: 'look for a tool' };
  override readonly readsOutsideText = false;
  override readonly timeoutMs = 2000;

  constructor(
    services: ToolServices,
    private readonly registry: ToolRegistry,
  ) {
    super(services);
  }

  /** Each match is described on a line of its own starting "- name:". */
  override summarize(result: string): string | undefined {
    if (result.startsWith('No tool matches')) return 'no match';
    const count = result.split('\n').filter((line) => line.startsWith('- ')).length;
    return count === 0 ? undefined : `${count} match${count === 1 ? '' : 'es'}`;
  }

  async run(raw: string): Promise<ToolOutput> {
    const input = parseToolParams(raw);
    const params = field(input, 'query') ?? input.text;
    const tools = this.registry.offered.filter((tool) => tool.name !== this.name);
    const answer = (text: string, shown: Tool[]): ToolOutput => ({ text, outsideText: shown.some((tool) => tool.describedOutside) });
    const allNames = `All tools: ${tools.map((tool) => tool.name).join(', ')}.`;
    const query = new Set(wordsOf(params.slice(0, 500)));
    if (query.size === 0) return answer(`Name what the tool should do. ${allNames}`, tools);
    const scored = tools
      .map((tool) => {
        const nameWords = new Set(wordsOf(tool.name));
        const descriptionWords = new Set(wordsOf(`${tool.description} ${tool.source}`));
        let score = 0;
        for (const word of query) {
          if (nameWords.has(word)) score += 3;
          else if ([...nameWords].some((part) => part.startsWith(word) || word.startsWith(part))) score += 2;
          if (descriptionWords.has(word)) score += 1;
        }
        return { tool, score };
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
      .slice(0, maximumMatches);
    if (scored.length === 0) return answer(`No tool matches "${params.trim().slice(0, 100)}". ${allNames}`, tools);
    return answer(scored.map(({ tool }) => describeTool(tool)).join('\n'), scored.map(({ tool }) => tool));
  }
}
