import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Tool, type CallTag, type ToolClass, type ToolServices } from './tool.js';

export const normalizeToolName = (name: string): string => name.trim().toLowerCase().replace(/[\s-]+/g, '_');

/** A rough token count (about 3.5 characters a token), the same rule as the history's. */
const estimateTokens = (text: string): number => Math.ceil(text.length / 3.5);

/** How much of the system prompt the tool list may take, whatever the number of tools. */
export const defaultToolPromptBudgetTokens = 1200;

export interface DescribeOptions {
  budgetTokens?: number;
  /** How often each tool was used: the most used are described first. */
  usage?: ReadonlyMap<string, number>;
}

/** The tool that finds the others by what they do (its name is fixed: the prompt points at it). */
export const findToolsName = 'find_tools';

/** A description's first sentence, cut to a line: enough to choose a tool by; find_tools gives the rest. */
function briefly(description: string): string {
  const sentence = /^[\s\S]*?[.!?](?=\s|$)/.exec(description)?.[0] ?? description;
  return sentence.length > 140 ? `${sentence.slice(0, 139)}…` : sentence;
}

/** One tool as the model reads it: what it does, whether it asks first, and complete example calls. */
export const describeTool = (tool: Tool, brief = false): string => {
  const approval = tool.actsOnWorld ? ' (asks the person for approval before it acts)' : '';
  const description = brief ? briefly(tool.description) : tool.description;
  return `- ${tool.name}: ${description}${approval}\n${tool.examples.map((example) => `  ${example}`).join('\n')}`;
};

/** The order tools are offered in within the prompt budget: the most used, then the built-in ones. */
export function rankForPrompt(tools: Tool[], usage: ReadonlyMap<string, number>): Tool[] {
  return tools.sort(
    (a, b) =>
      (usage.get(b.name) ?? 0) - (usage.get(a.name) ?? 0) ||
      Number(b.source === 'Built-in') - Number(a.source === 'Built-in') ||
      // Reading tools first: asked about more often, and harmless when a model calls one by mistake.
      Number(a.actsOnWorld) - Number(b.actsOnWorld) ||
      a.name.localeCompare(b.name),
  );
}

/**
 * Every tool the model can call: the classes in tools/ (fixed at start) and groups that come and
 * go while Hearth runs (each MCP server's tools), found by name however the model writes it; and
 * the tools called with a tag of their own, found by their tag.
 */
export class ToolRegistry {
  readonly #fixed = new Map<string, Tool>();
  readonly #groups = new Map<string, Map<string, Tool>>();

  constructor(tools: Tool[]) {
    for (const tool of tools) this.add(tool);
  }

  /** Adds one fixed tool (a built-in made after the others, such as find_tools). */
  add(tool: Tool): void {
    const key = normalizeToolName(tool.name);
    if (this.#fixed.has(key)) throw new Error(`Two tools are named "${tool.name}"`);
    this.#fixed.set(key, tool);
  }

  /**
   * Replaces a group's tools (an MCP server connected, changed its list, or went away). A name
   * that another tool already has is left out and returned, so the caller can say so.
   */
  replaceGroup(group: string, tools: Tool[]): string[] {
    this.#groups.delete(group);
    const kept = new Map<string, Tool>();
    const clashes: string[] = [];
    for (const tool of tools) {
      const key = normalizeToolName(tool.name);
      if (kept.has(key) || this.#lookup(key)) clashes.push(tool.name);
      else kept.set(key, tool);
    }
    if (kept.size > 0) this.#groups.set(group, kept);
    return clashes;
  }

  #lookup(key: string): Tool | undefined {
    const fixed = this.#fixed.get(key);
    if (fixed) return fixed;
    for (const group of this.#groups.values()) {
      const tool = group.get(key);
      if (tool) return tool;
    }
    return undefined;
  }

  /** A tool the model may call by name, however it capitalised or spaced the name. */
  find(name: string): Tool | undefined {
    const tool = this.#lookup(normalizeToolName(name));
    return tool?.calledWith === 'tool' ? tool : undefined;
  }

  /** Any tool by its name, a tagged one too: what a card or an approval asks about a recorded call. */
  named(name: string): Tool | undefined {
    return this.#lookup(normalizeToolName(name));
  }

  /** The tool a tag of its own calls. */
  forTag(tag: CallTag): Tool | undefined {
    return this.#every().find((tool) => tool.calledWith === tag);
  }

  #every(): Tool[] {
    const tools = [...this.#fixed.values()];
    for (const group of this.#groups.values()) tools.push(...group.values());
    return tools;
  }

  /** The tools the model calls by name, by name. */
  get all(): Tool[] {
    return this.#every()
      .filter((tool) => tool.calledWith === 'tool')
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The tools the model is offered now: those that can work (a Gmail tool needs a connected account). */
  get offered(): Tool[] {
    return this.all.filter((tool) => tool.unavailableReason() === undefined);
  }

  /** The names of the tools offered now (what a call to an unknown tool is told). */
  get names(): string[] {
    return this.offered.map((tool) => tool.name);
  }

  /** Some tool's name and description were written outside Hearth (an MCP server is connected). */
  get describesOutsideText(): boolean {
    return this.all.some((tool) => tool.describedOutside);
  }

  /**
   * The tool list as the system prompt shows it, within a fixed budget: a 3B model cannot read
   * sixty descriptions. The most used tools (then the built-in ones) are described in full;
   * the rest are named while room remains, and find_tools tells how to call any of them.
   */
  describe(options: DescribeOptions = {}): string {
    const budget = options.budgetTokens ?? defaultToolPromptBudgetTokens;
    const usage = options.usage ?? new Map<string, number>();
    const finder = this.#fixed.get(findToolsName);
    const ranked = rankForPrompt(this.offered.filter((tool) => tool !== finder), usage);
    const full = ranked.map((tool) => describeTool(tool));
    const fullCost = full.reduce((sum, text) => sum + estimateTokens(text) + 1, 0);
    if (fullCost <= budget) return full.join('\n');

    // Not everything fits: first sentences only, the finder first, the most useful next, then names.
    const texts = ranked.map((tool) => describeTool(tool, true));
    const costs = texts.map((text) => estimateTokens(text) + 1);

    const described = finder ? [describeTool(finder)] : [];
    const intro = 'More tools (find_tools tells how to call them): ';
    let room = budget - (finder ? estimateTokens(described[0]!) + 1 : 0) - estimateTokens(intro) - 8;
    const reserveForNames = Math.min(200, Math.floor(room / 4));
    let index = 0;
    for (; index < ranked.length && costs[index]! <= room - reserveForNames; index += 1) {
      described.push(texts[index]!);
      room -= costs[index]!;
    }
    const named: string[] = [];
    const rest = ranked.slice(index);
    for (const tool of rest) {
      const cost = estimateTokens(`${tool.name}, `);
      if (cost > room - 4) break;
      named.push(tool.name);
      room -= cost;
    }
    const unnamed = rest.length - named.length;
    if (rest.length > 0) described.push(`${intro}${named.join(', ')}${unnamed > 0 ? `${named.length > 0 ? ', ' : ''}and ${unnamed} more` : ''}.`);
    return described.join('\n');
  }
}

/** Every default-exported Tool class in the folder, each given the services it names (Tool.using). */
export async function loadTools(folder: string, services: ToolServices): Promise<ToolRegistry> {
  const files = fs.existsSync(folder)
    ? fs
        .readdirSync(folder)
        .filter((file) => /\.(ts|js)$/.test(file) && !/\.(d|test)\.(ts|js)$/.test(file))
        .sort()
    : [];
  const tools: Tool[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(path.join(folder, file)).href)) as { default?: unknown };
    const ToolClassFound = module.default as ToolClass | undefined;
    if (typeof ToolClassFound !== 'function' || !(ToolClassFound.prototype instanceof Tool)) {
      throw new Error(`tools/${file} must default-export a class that extends Tool`);
    }
    tools.push(new ToolClassFound(services));
  }
  return new ToolRegistry(tools);
}
