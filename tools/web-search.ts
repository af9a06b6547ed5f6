import { Tool, ToolError, maxCardLinks, type ToolLink, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { field, parseToolParams } from '../src/engine/tools/tool-params.js';
import { webOffReason } from '../src/providers/web/web-off.js';

/** The top results for a query from the search service the person set up (docs/web.md). */
export default class WebSearchTool extends Tool.using('web') {
  readonly name = 'web_search';
  readonly description = 'Search the web: the top results, each a title, address and snippet. Read one with read_web_page; cite the addresses you use.';
  readonly examples = ['[TOOL:web_search]opening hours Louvre museum[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: { query: { type: 'string', description: 'What to search for, in a few words.' } },
    required: ['query'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Searching the web', done: 'Searched the web', act: 'search the web' };
  override readonly maxResultCharacters = 4000;

  override readonly source: string = `Built-in: queries go to ${this.services.web.searchService}`;

  override unavailableReason(): string | undefined {
    return this.services.web.enabled ? undefined : webOffReason;
  }

  /** "5 results". */
  override summarize(result: string): string | undefined {
    const count = result.match(/^\d+\. /gm)?.length ?? 0;
    return count === 0 ? undefined : `${count} result${count === 1 ? '' : 's'}`;
  }

  /** Its results, by title and address, at most five. */
  override links(result: string): ToolLink[] {
    const links: ToolLink[] = [];
    for (const [, title, href] of result.matchAll(/^\d+\. (.*)\n {3}(\S+)$/gm)) {
      links.push({ href: href!, title: title! });
      if (links.length === maxCardLinks) break;
    }
    return links;
  }

  async run(raw: string, context: ToolRunContext): Promise<string> {
    if (!this.services.web.enabled) throw new ToolError('Web search is turned off on this Hearth.');
    const params = parseToolParams(raw);
    const query = (field(params, 'query', 'q', 'search') ?? params.text).trim();
    if (query === '') throw new ToolError('Give words to search for, such as [TOOL:web_search]weather Paris[/TOOL].');
    if (query.length > 400) throw new ToolError('That query is too long; use a few words.');
    let results;
    try {
      results = await this.services.web.search(query, context.signal);
    } catch (error) {
      if (context.signal.aborted) throw error;
      throw new ToolError(`The search failed: ${(error as Error).message}`);
    }
    if (results.length === 0) return `No results for "${query}".`;
    const lines = results.map((result, index) => `${index + 1}. ${result.title || result.url}\n   ${result.url}${result.snippet ? `\n   ${result.snippet}` : ''}`);
    return `Results for "${query}" (from ${this.services.web.searchService}):\n${lines.join('\n')}`;
  }
}
