import { LlmError, type LlmFailure } from './llm-error.js';

/*
 * What the replies and pages need from a model server, whichever it is: Ollama
 * (ollama-chat-model.ts), an OpenAI-compatible server (openai-chat-model.ts), or several behind
 * the model router (model-router.ts).
 */

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** base64 pictures, for models with the vision capability. */
  images?: string[];
}

export interface ModelDescription {
  name: string;
  capabilities: string[];
  contextLength: number | undefined;
}

export interface ReplyChunk {
  content: string;
  thinking: string;
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
