import { Tool, ToolError, type ToolLink, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { field, parseToolParams } from '../src/engine/tools/tool-params.js';
import { webOffReason } from '../src/providers/web/web-off.js';

/** How much of a page's text the model is given (about 2,300 tokens). */
export const pageTextBudget = 8000;

/**
 * One web page's main text as Markdown, title and address first. Addresses inside the home
 * network are refused (docs/web.md); the page's words are outside text like an email's.
 */
export default class ReadWebPageTool extends Tool.using('web') {
  readonly name = 'read_web_page';
  readonly description = 'Read one web page (http or https): its title, address and main text as Markdown, cut to a budget. Plain text and JSON come as they are. Cite the address.';
  readonly examples = ['[TOOL:read_web_page]https://en.wikipedia.org/wiki/Hearth[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: { url: { type: 'string', description: 'The page address, starting with http:// or https://.' } },
    required: ['url'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Reading a web page', done: 'Read a web page', act: 'read a web page' };
  override readonly timeoutMs = 30_000;
  override readonly maxResultCharacters = pageTextBudget + 1000;

  override unavailableReason(): string | undefined {
    return this.services.web.enabled ? undefined : webOffReason;
  }

  /** The page's title, in quotes (the page's words: the card escapes them). */
  override summarize(result: string): string | undefined {
    const title = /^Title: (.+)$/m.exec(result)?.[1];
    return title === undefined ? undefined : `“${title.length > 80 ? `${title.slice(0, 79)}…` : title}”`;
  }

  /** The page it read, by its title and final address (the result's first two lines). */
  override links(result: string): ToolLink[] {
    const page = /^Title: (.*)\nAddress: (\S+)(?:\n|$)/.exec(result.slice(0, 4000));
    if (!page) return [];
    const title = page[1]!.trim();
    return [{ href: page[2]!, title: title === '(none)' || title === '' ? page[2]! : title }];
  }

  async run(raw: string, context: ToolRunContext): Promise<string> {
    if (!this.services.web.enabled) throw new ToolError('Reading web pages is turned off on this Hearth.');
    const params = parseToolParams(raw);
    let address = (field(params, 'url', 'address', 'link', 'page') ?? params.text).trim();
    if (address === '') throw new ToolError('Give the page address, such as [TOOL:read_web_page]https://example.com/[/TOOL].');
    if (!/^[a-z][a-z0-9+.-]*:/i.test(address)) address = `https://${address}`;
    let page;
    try {
      page = await this.services.web.readPage(address, context.signal);
    } catch (error) {
      if (context.signal.aborted) throw error;
      throw new ToolError((error as Error).message);
    }
    let text = page.text || '(no text found on this page)';
    const notes: string[] = [];
    if (text.length > pageTextBudget) {
      // Cut at a paragraph or word boundary when one is near.
      const slice = text.slice(0, pageTextBudget);
      const boundary = Math.max(slice.lastIndexOf('\n\n'), slice.search(/\s\S*$/));
      const kept = (boundary > pageTextBudget * 0.8 ? slice.slice(0, boundary) : slice).trimEnd();
      notes.push(`[Page cut here: ${(text.length - kept.length).toLocaleString('en')} more characters not shown.]`);
      text = kept;
    } else if (page.cut) notes.push('[The page was larger than 2 MB: only its start was read.]');
    return [`Title: ${page.title || '(none)'}`, `Address: ${page.url}`, '', text, ...notes].join('\n');
  }
}
