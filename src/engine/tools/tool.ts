import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';

/**
 * What a tool may use. Built once at start and handed to every tool's constructor. A provider
 * adds its own services by declaration merging (`declare module '…/engine/tools/tool.js' {
 * interface ToolServices { … } }`, as providers/google does), so the engine names none of them.
 */
export interface ToolServices {
  config: Config;
  logger: FastifyBaseLogger;
  now: () => Date;
}

/** What the calls of one reply share. */
export interface TurnState {
  /** The memory revision the model saw, moved on by its own writes. */
  memoryRevision: string;
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

/** Whether a call waits for the person, and what it would change (shown on the card). */
export interface ApprovalNeed {
  ask: boolean;
  preview?: string;
  /** False where "Always allow" must not skip the question (memory updates after outside text). */
  canAlwaysAllow: boolean;
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
 * default-exported; the registry finds it at start.
 */
export abstract class Tool {
  /** lower_snake_case, as the model writes it. */
  abstract readonly name: string;
  /** One or two sentences for the system prompt: what it does and when to use it. */
  abstract readonly description: string;
  /** Complete example calls, shown to the model. */
  abstract readonly examples: string[];
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

  constructor(protected readonly services: ToolServices) {}

  /** Tools that act on the world ask first; a tool may decide per call and show what it would change. */
  async approvalFor(_params: string, _situation: CallSituation): Promise<ApprovalNeed> {
    return { ask: this.actsOnWorld, canAlwaysAllow: true };
  }

  /** `params` is the raw text between the tags; parse it with parseToolParams. */
  abstract run(params: string, context: ToolRunContext): Promise<string | ToolOutput>;
}

export type ToolClass = new (services: ToolServices) => Tool;
