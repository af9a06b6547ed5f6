import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { ScannedTag } from './tool-call-scanner.js';

/** What every tool is given. */
export interface CommonToolServices {
  config: Config;
  logger: FastifyBaseLogger;
  now: () => Date;
}

/**
 * Everything tools may use: the common services, and each provider's, added by the provider by
 * declaration merging (`declare module '…/engine/tools/tool.js' { interface ToolServices { … } }`,
 * as providers/google does), so the engine names none of them. Built once at start; a tool is
 * given the common services and only the providers' it names (Tool.using).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- providers fill it in by declaration merging
export interface ToolServices extends CommonToolServices {}

/** A provider's service a tool can ask for by name ('google'). */
export type ServiceName = Exclude<keyof ToolServices, keyof CommonToolServices>;

/** What a tool that uses `Needs` is given. */
export type ServicesFor<Needs extends ServiceName> = CommonToolServices & Pick<ToolServices, Needs>;

/** The common services and the named ones, nothing else: a calculator is not handed Gmail. */
export function servicesFor<Needs extends ServiceName>(needs: readonly Needs[], services: ServicesFor<Needs>, toolName = 'a tool'): ServicesFor<Needs> {
  const given: CommonToolServices & Record<string, unknown> = { config: services.config, logger: services.logger, now: services.now };
  for (const name of needs) {
    const service = (services as Record<string, unknown>)[name];
    if (service === undefined) throw new Error(`${toolName} needs the "${String(name)}" tool service, which nothing provided`);
    given[name] = service;
  }
  return given as ServicesFor<Needs>;
}

/**
 * One argument of a tool, as JSON Schema (the keywords tools use; an MCP server's schema may
 * use any). The model's free-text params are still read as before; the schema says what they mean.
 */
export interface ParameterSchema {
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  description?: string;
  enum?: readonly (string | number)[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  items?: ParameterSchema;
  [keyword: string]: unknown;
}

/** A tool's arguments: a JSON Schema object, for native tool calls and argument checks. */
export interface ToolParameters {
  type: 'object';
  properties: Record<string, ParameterSchema>;
  required?: readonly string[];
  additionalProperties?: boolean;
  [keyword: string]: unknown;
}

/** How a call reads on its card: "Searching your email…", "Searched your email — 3 results", "Could not search your email". */
export interface ToolWords {
  /** While it runs (the card adds "…"): "Searching your email". */
  doing: string;
  /** Once it is done: "Searched your email". */
  done: string;
  /** After "Could not " and "Wants to ": "search your email". */
  act: string;
  /** Said on its approval card above the buttons, when why it asks is not plain from the headline. */
  asks?: string;
}

/** A tool's own words, or words made from its name for one that has none or is no longer installed. */
export function wordsFor(name: string, tool?: Pick<Tool, 'words'>): ToolWords {
  return tool?.words ?? { doing: `Using ${name}`, done: `Used ${name}`, act: `use ${name}` };
}

/** How the model calls a tool: by name (`[TOOL:name]` and the other call formats), or with a tag of its own the scanner knows. */
export type CallTag = ScannedTag['kind'];

/** A link a finished call's card shows: a page it read or found. The card keeps http(s) ones only and escapes the title. */
export interface ToolLink {
  href: string;
  title: string;
}

/** At most this many links on one card. */
export const maxCardLinks = 5;

/** What the calls of one reply share; a provider adds what its tools keep per reply by declaration merging. */
export interface TurnState {
  /** The model can see pictures: tools may return them (ToolOutput.images). */
  vision: boolean;
}

export interface ToolRunContext {
  /** Aborted when the person presses Stop or the tool's time runs out. */
  signal: AbortSignal;
  conversationId: number;
  turn: TurnState;
  /** A short progress line ("3 of 10 files"), shown on the tool's card while it runs. */
  reportProgress(text: string): void;
}

export interface ToolImage {
  mimeType: string;
  /** base64, as Ollama's `images` takes it. */
  data: string;
}

/** A result with pictures: vision models see them; the text says they were there for the others. */
export interface ToolOutput {
  text: string;
  images?: ToolImage[];
  /**
   * This result carries outside text though the tool's results usually do not (find_tools
   * describing an MCP tool): the conversation counts as having seen outside text from now on.
   */
  outsideText?: boolean;
}

/** Whether a call waits for the person, and what it would change (shown on the card as "+ "/"- " lines). */
export interface ApprovalNeed {
  ask: boolean;
  preview?: string;
}

/** What is known about the conversation when a call is about to run. */
export interface CallSituation {
  /**
   * Text from outside has reached the model in this conversation: a result from an email, a
   * calendar or an MCP server, or an MCP tool's own name and description (in a system prompt or
   * a find_tools answer).
   */
  outsideTextSeen: boolean;
}

/** A failure the model can act on: its message goes back to the model as the result. */
export class ToolError extends Error {
  override name = 'ToolError';
}

/**
 * A tool the model can call with [TOOL:name]params[/TOOL]. One class per file in tools/,
 * default-exported; the registry finds it at start. It says what it takes (parameters), how its
 * calls read on a card (words, summarize) and when it asks first; the engine and the pages ask it.
 */
export abstract class Tool<Needs extends ServiceName = never> {
  /** The providers' services it uses (set by Tool.using): it is given these and the common ones only. */
  static readonly needs: readonly ServiceName[] = [];

  /**
   * A base class for a tool that uses providers' services:
   * `class SearchEmailsTool extends Tool.using('google')` is given `this.services.google`.
   */
  static using<const Needs extends ServiceName>(...needs: Needs[]) {
    abstract class ToolUsingServices extends Tool<Needs> {
      static override readonly needs: readonly ServiceName[] = needs;
    }
    return ToolUsingServices;
  }

  /** lower_snake_case, as the model writes it. */
  abstract readonly name: string;
  /** One or two sentences for the system prompt: what it does and when to use it. */
  abstract readonly description: string;
  /** Complete example calls, shown to the model. */
  abstract readonly examples: string[];
  /**
   * Its arguments as a JSON Schema object: names, types, which are required, what each means.
   * By default one free-text argument, which is how params without names are read.
   */
  readonly parameters: ToolParameters = {
    type: 'object',
    properties: { text: { type: 'string', description: 'What the tool should work on, in plain words.' } },
  };
  /** How its calls read on a card; without them, made from its name ("Using x…", "Used x", "Could not use x"). */
  readonly words?: ToolWords;
  /** How long one call may take before it is abandoned. */
  readonly timeoutMs: number = 15_000;
  /** Tools that change something outside Hearth ask the person first. */
  readonly actsOnWorld: boolean = false;
  /**
   * Results carry text written by someone else (an email, a calendar entry, a web page): once
   * one is in a conversation, a memory update there waits for the person's approval. Only tools
   * whose output Hearth computes itself (a clock, a calculator) say false.
   */
  readonly readsOutsideText: boolean = true;
  /**
   * Its name and description were written outside Hearth (an MCP server sends them): a
   * conversation whose model was shown them counts as having seen outside text.
   */
  readonly describedOutside: boolean = false;
  /** Where it comes from, as the tools page shows it. */
  readonly source: string = 'Built-in';
  /** Results longer than this are cut, with a note saying so. */
  readonly maxResultCharacters: number = 4000;
  /**
   * How the model calls it: by name (the default), or with a tag of its own that the scanner
   * reads. A tool called by a tag of its own is not listed to the model, not found by name and
   * not on the tools page.
   */
  readonly calledWith: CallTag = 'tool';
  /**
   * False where "Always allow" must never skip its question: the card offers no box and an
   * "always" sent anyway is ignored (a tool that asks because outside text may have steered the model).
   */
  readonly canAlwaysAllow: boolean = true;
  /**
   * The model reads its result and writes again (the default). False for a tool whose success
   * speaks for itself: after it the reply goes on only if it failed, and its results are left
   * out of the history later turns are shown.
   */
  readonly resultGoesToHistory: boolean = true;

  protected readonly services: ServicesFor<Needs>;

  constructor(services: ServicesFor<Needs>) {
    // Only what the class named: whoever builds a tool hands it the whole set.
    this.services = servicesFor(new.target.needs as readonly Needs[], services, new.target.name);
  }

  /**
   * Tools that act on the world ask first; a tool may decide per call and show what it would
   * change. `signal` is aborted when the person presses Stop: a lookup for the card ends with it.
   */
  async approvalFor(_params: string, _situation: CallSituation, _signal: AbortSignal): Promise<ApprovalNeed> {
    return { ask: this.actsOnWorld };
  }

  /**
   * Why the model is not offered it now, in the person's words ("no Google account is connected
   * yet"); undefined while it works. An unavailable tool is left out of the system prompt and
   * find_tools.
   */
  unavailableReason(): string | undefined {
    return undefined;
  }

  /**
   * A failed call's reason in the person's words, when its result was written for the model
   * ("Ask the person to run…"); undefined: the card shows the result's first line.
   */
  explainFailure(_result: string): string | undefined {
    return undefined;
  }

  /** What a finished call found, in a few words from its result ("3 results", "6 * 7 = 42"); undefined when there is nothing to add. */
  summarize(_result: string): string | undefined {
    return undefined;
  }

  /**
   * The pages a finished call is about, read from its own stored result (a page read, search
   * results), shown on its card as links; none by default. Outside text: the card checks each.
   */
  links(_result: string): ToolLink[] {
    return [];
  }

  /** `params` is the raw text between the tags; parse it with parseToolParams. */
  abstract run(params: string, context: ToolRunContext): Promise<string | ToolOutput>;
}

export type ToolClass = (new (services: ToolServices) => Tool) & { readonly needs: readonly ServiceName[] };
