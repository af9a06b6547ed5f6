import { LlmError, type LlmFailure } from './llm-error.js';

/*
 * What the replies and pages need from a model server, whichever it is: Ollama
 * (ollama-chat-model.ts), an OpenAI-compatible server (openai-chat-model.ts), or several behind
 * the model router (model-router.ts).
 */

/**
 * A tool call in the model's own format (native tool calling). `arguments` is JSON text: Ollama
 * sends an object (written out here), an OpenAI-compatible server a string, which may not parse.
 */
export interface NativeToolCall {
  /** The server's id for the call (OpenAI's `call_…`); results name it back. */
  id?: string;
  name: string;
  arguments: string;
}

/** A tool as it is sent natively: its name, what it does, and its arguments as a JSON Schema object. */
export interface NativeToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** base64 pictures, for models with the vision capability. */
  images?: string[];
  /** An assistant turn's native tool calls (each with an id its results name). */
  toolCalls?: NativeToolCall[];
  /** A `tool` turn: the tool whose result it is (Ollama's `tool_name`) and the call it answers (OpenAI's `tool_call_id`). */
  toolName?: string;
  toolCallId?: string;
}

/** How a model is given tools: natively (`tools` in the request) or taught [TOOL:] in the system prompt. */
export type ToolCallMode = 'native' | 'inline';

export interface ModelDescription {
  name: string;
  capabilities: string[];
  contextLength: number | undefined;
  /** How this model is given tools (from TOOL_CALLS and the capabilities); unset: inline. */
  toolCalls?: ToolCallMode;
}

export interface ReplyChunk {
  content: string;
  thinking: string;
  /** Native tool calls the model finished in this chunk, in order. */
  toolCalls?: NativeToolCall[];
}

export interface ReplyStream extends AsyncIterable<ReplyChunk> {
  /** Stops this one reply and its request to the model server; other replies go on. */
  abort(): void;
}

export interface ChatRequest {
  model: string;
  messages: ChatTurn[];
  /**
   * For a model with the thinking capability: true asks for its reasoning, false asks it not to
   * think (Ollama's `think: false`). Undefined says nothing, as for a model that cannot think (Ollama
   * refuses `think` from those). OpenAI-compatible servers get nothing either way: they have no
   * common switch, so their models think as they are set up to.
   */
  think?: boolean;
  contextTokens: number;
  /** Tools sent natively; absent: the model is taught [TOOL:] in the system prompt instead. */
  tools?: NativeToolSpec[];
  /** Aborting it stops the reply at any point, even before the server answers. */
  signal?: AbortSignal;
}

/** The models of one model server, for the picker; `problem` says why it has none to offer. */
export interface ModelGroup {
  backendId: string;
  name: string;
  /** `id` is what a conversation stores; `name` is the server's own name for the model. */
  models: Array<{ id: string; name: string }>;
  problem?: string;
  /** No list came back (as opposed to a list with no models); `failure` says why. */
  unreachable?: boolean;
  failure?: LlmFailure;
}

export interface BackendHealth {
  id: string;
  name: string;
  kind: 'ollama' | 'openai';
  status: 'reachable' | 'unreachable' | 'unauthorized';
}

export interface ChatModel {
  readonly host: string;
  listModels(): Promise<string[]>;
  describeModel(name: string): Promise<ModelDescription>;
  isReachable(): Promise<boolean>;
  streamReply(request: ChatRequest): Promise<ReplyStream>;
  /** Several model servers behind one ChatModel (the model router) list theirs apart. */
  listModelGroups?(): Promise<ModelGroup[]>;
  /** Each server behind this ChatModel by name and state (GET /healthz for a logged-in caller). */
  checkBackends(): Promise<BackendHealth[]>;
}

/** A server's state from its model list, not a ping: one that answers but refuses the key is not usable either. */
export function healthFromModelList(listing: Promise<unknown>): Promise<BackendHealth['status']> {
  return listing.then(
    () => 'reachable' as const,
    (error: unknown) => (error instanceof LlmError && error.failure === 'unauthorized' ? ('unauthorized' as const) : ('unreachable' as const)),
  );
}
