import type { Tool } from './tool.js';
import { findToolsName, rankForPrompt, type ToolRegistry } from './tool-registry.js';

/** A tool as it is sent natively (the model clients' NativeToolSpec): name, description, JSON Schema. */
export interface NativeToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * How much of the prompt the tools sent natively may take (their JSON Schemas), whatever the
 * number of tools. Schemas are wordier than [TOOL:] examples (the list's budget is 1200): 2000
 * sends every built-in tool (about 1,500 tokens with Gmail and Calendar), and no more than that
 * goes to MCP tools beside them.
 */
export const defaultNativeToolBudgetTokens = 2000;

const estimateTokens = (text: string): number => Math.ceil(text.length / 3.5);
/** One tool's cost: its spec, and the wrapper the server puts round it (`{"type":"function","function":…}`). */
const specTokens = (spec: NativeToolSpec): number => estimateTokens(JSON.stringify(spec)) + 12;

/** A tool as it is sent natively: its description (with "asks first" where it does) and its JSON Schema. */
export function nativeSpecOf(tool: Tool): NativeToolSpec {
  const approval = tool.actsOnWorld ? ' Asks the person for approval before it acts.' : '';
  return { name: tool.name, description: `${tool.description}${approval}`, parameters: { ...tool.parameters } };
}

export interface NativeToolChoice {
  specs: NativeToolSpec[];
  /** What the system prompt says of the tools left out: named while room remains, for find_tools to describe. */
  promptText: string;
}

export interface NativeToolOptions {
  usage?: ReadonlyMap<string, number>;
  budgetTokens?: number;
  /** Tools this chat already called or find_tools described: sent whatever the budget, so the model can call them. */
  wanted?: ReadonlySet<string>;
}

/**
 * The tools sent natively, within a budget as the [TOOL:] list is: find_tools always, the wanted
 * ones, then the most used and the built-in ones while their schemas fit. The rest are named in the
 * system prompt; find_tools describes them, and the next round sends the ones it found.
 */
export function chooseNativeTools(registry: Pick<ToolRegistry, 'offered'>, options: NativeToolOptions = {}): NativeToolChoice {
  const wanted = options.wanted ?? new Set<string>();
  const offered = registry.offered;
  const finder = offered.find((tool) => tool.name === findToolsName);
  const ranked = rankForPrompt(
    offered.filter((tool) => tool !== finder),
    options.usage ?? new Map<string, number>(),
  );
  let room = options.budgetTokens ?? defaultNativeToolBudgetTokens;
  const sent: NativeToolSpec[] = [];
  const left: string[] = [];
  const send = (tool: Tool) => {
    const spec = nativeSpecOf(tool);
    room -= specTokens(spec);
    sent.push(spec);
  };
  if (finder) send(finder);
  for (const tool of ranked) if (wanted.has(tool.name)) send(tool);
  for (const tool of ranked) {
    if (wanted.has(tool.name)) continue;
    if (specTokens(nativeSpecOf(tool)) <= room) send(tool);
    else left.push(tool.name);
  }
  if (left.length === 0) return { specs: sent, promptText: '' };
  // Names while 200 tokens last, as in the [TOOL:] list: a small model cannot read a hundred of them either.
  let nameRoom = Math.min(200, Math.floor((options.budgetTokens ?? defaultNativeToolBudgetTokens) / 5));
  const named: string[] = [];
  for (const name of left) {
    const cost = estimateTokens(`${name}, `);
    if (cost > nameRoom) break;
    named.push(name);
    nameRoom -= cost;
  }
  const unnamed = left.length - named.length;
  const list = `${named.join(', ')}${unnamed > 0 ? `${named.length > 0 ? ', ' : ''}and ${unnamed} more` : ''}`;
  return { specs: sent, promptText: `More tools, not sent with this request (${findToolsName} tells what they take; then call them by name): ${list}.` };
}

/** The tools a find_tools answer described: each is a line "- name: …". */
export function namesInFinderResult(result: string): string[] {
  return [...result.matchAll(/^- ([\w.-]{1,64}):/gm)].map((match) => match[1]!);
}
