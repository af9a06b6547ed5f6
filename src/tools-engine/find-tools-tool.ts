import { Tool, type ToolServices } from './tool.js';
import { describeTool, findToolsName, type ToolRegistry } from './tool-registry.js';

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** How many tools one search describes in full: enough to choose from, few enough to read. */
const maximumMatches = 5;

/**
 * Finds tools by what they do, for the tools the system prompt had no room to describe:
 * [TOOL:find_tools]turn off lights[/TOOL] returns the best matches with how to call them.
 */
export class FindToolsTool extends Tool {
  readonly name = findToolsName;
  readonly description = 'Finds more tools by what they do; returns how to call the best matches. Use it when no listed tool fits.';
  readonly examples = ['[TOOL:find_tools]calendar events[/TOOL]'];
  override readonly readsOutsideText = false;
  override readonly timeoutMs = 2000;

  constructor(
    services: ToolServices,
    private readonly registry: ToolRegistry,
  ) {
    super(services);
  }

  async run(params: string): Promise<string> {
    const tools = this.registry.all.filter((tool) => tool.name !== this.name);
    const query = new Set(wordsOf(params.slice(0, 500)));
    if (query.size === 0) return `Name what the tool should do. All tools: ${tools.map((tool) => tool.name).join(', ')}.`;
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
    if (scored.length === 0) return `No tool matches "${params.trim().slice(0, 100)}". All tools: ${tools.map((tool) => tool.name).join(', ')}.`;
    return scored.map(({ tool }) => describeTool(tool)).join('\n');
  }
}
