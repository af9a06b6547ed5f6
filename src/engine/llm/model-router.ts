import { healthFromModelList, type BackendHealth, type ChatModel, type ModelDescription, type ModelGroup } from './chat-model.js';
import { LlmError } from './llm-error.js';
import { defaultTimeouts, duration, withinTimeLimit } from './model-server.js';

/**
 * Several model servers behind the one ChatModel the reply runner and the tool engine use.
 *
 * Model ids say which server a model is on without a schema change: Ollama's models keep their
 * plain names (so existing conversations work as before), every other server's are
 * `@<backend-id>/<model>`. An Ollama name can never start with `@`, and everything after the
 * first `/` is the server's own name (vLLM's names contain slashes: `Qwen/Qwen2.5-7B-Instruct`).
 */
export interface ModelBackend {
  id: string;
  name: string;
  kind: 'ollama' | 'openai';
  chatModel: ChatModel;
}

export interface ModelRouterOptions {
  /** How long the picker waits for one server's list before showing it as not answering. */
  listTimeoutMs?: number;
}

export interface ModelRouter extends ChatModel {
  listModelGroups(): Promise<ModelGroup[]>;
  checkBackends(): Promise<BackendHealth[]>;
}

export function modelIdFor(backend: Pick<ModelBackend, 'id' | 'kind'>, name: string): string {
  return backend.kind === 'ollama' ? name : `@${backend.id}/${name}`;
}

/** Splits a stored model id into its backend id (undefined: Ollama) and the server's model name. */
export function parseModelId(id: string): { backendId: string | undefined; name: string } {
  if (!id.startsWith('@')) return { backendId: undefined, name: id };
  const slash = id.indexOf('/');
  if (slash === -1) return { backendId: id.slice(1), name: '' };
  return { backendId: id.slice(1, slash), name: id.slice(slash + 1) };
}

export function createModelRouter(backends: ModelBackend[], options: ModelRouterOptions = {}): ModelRouter {
  if (backends.length === 0) throw new Error('the model router needs at least one backend');
  const listTimeoutMs = options.listTimeoutMs ?? defaultTimeouts.listTimeoutMs;
  const ollama = backends.find((backend) => backend.kind === 'ollama');

  function resolve(id: string): { backend: ModelBackend; name: string } {
    const { backendId, name } = parseModelId(id);
    if (backendId === undefined) {
      if (!ollama) throw new LlmError('model-missing', `The model "${id}" would be Ollama's, but Ollama is not configured. Pick another model.`, 'Ollama');
      return { backend: ollama, name };
    }
    const backend = backends.find((candidate) => candidate.kind !== 'ollama' && candidate.id === backendId);
    if (!backend) {
      throw new LlmError(
        'model-missing',
        `This chat used "${name}" on the model server "${backendId}", which is no longer configured (OPENAI_BASE_URL / OPENAI_BACKENDS). Pick another model.`,
        backendId,
      );
    }
    return { backend, name };
  }

  async function listModelGroups(): Promise<ModelGroup[]> {
    return Promise.all(
      backends.map(async (backend): Promise<ModelGroup> => {
        const group = { backendId: backend.id, name: backend.name };
        try {
          const names = await withinTimeLimit(backend.chatModel.listModels(), listTimeoutMs, () => new LlmError('unreachable', `${backend.name} did not answer within ${duration(listTimeoutMs)}.`, backend.name));
          const models = names.map((name) => ({ id: modelIdFor(backend, name), name }));
          if (models.length > 0) return { ...group, models };
          const problem =
            backend.kind === 'ollama'
              ? `Ollama at ${backend.chatModel.host} has no models installed. Install one with: ollama pull llama3.2`
              : `${backend.name} has no models loaded.`;
          return { ...group, models, problem };
        } catch (error) {
          const problem = error instanceof LlmError ? error.message : `${backend.name} could not be asked for its models.`;
          return { ...group, models: [], problem, unreachable: true, failure: error instanceof LlmError ? error.failure : 'unreachable' };
        }
      }),
    );
  }

  return {
    host: ollama?.chatModel.host ?? backends[0]!.chatModel.host,

    listModelGroups,

    /** Every server's models; a server that is down is left out, unless all are down. */
    async listModels() {
      const groups = await listModelGroups();
      if (groups.every((group) => group.unreachable)) {
        throw new LlmError('unreachable', groups.map((group) => group.problem).join(' '), groups.map((group) => group.name).join(' and '));
      }
      return groups.flatMap((group) => group.models.map((model) => model.id));
    },

    async describeModel(id): Promise<ModelDescription> {
      const { backend, name } = resolve(id);
      const description = await backend.chatModel.describeModel(name);
      return { ...description, name: id };
    },

    async isReachable() {
      const answers = await Promise.all(backends.map((backend) => backend.chatModel.isReachable()));
      return answers.some(Boolean);
    },

    async checkBackends() {
      return Promise.all(
        backends.map(async (backend): Promise<BackendHealth> => {
          const status = await healthFromModelList(withinTimeLimit(backend.chatModel.listModels(), listTimeoutMs, () => new LlmError('unreachable', 'timeout', backend.name)));
          return { id: backend.id, name: backend.name, kind: backend.kind, status };
        }),
      );
    },

    async streamReply(request) {
      const { backend, name } = resolve(request.model);
      return backend.chatModel.streamReply({ ...request, model: name });
    },
  };
}

/** The picker's groups for any ChatModel: a plain Ollama one is one group. */
export async function modelGroupsOf(chatModel: ChatModel): Promise<ModelGroup[]> {
  if (chatModel.listModelGroups) return chatModel.listModelGroups();
  const group = { backendId: 'ollama', name: 'Ollama' };
  try {
    const names = await chatModel.listModels();
    const models = names.map((name) => ({ id: name, name }));
    return [
      models.length > 0
        ? { ...group, models }
        : { ...group, models, problem: `Ollama at ${chatModel.host} has no models installed. Install one with: ollama pull llama3.2` },
    ];
  } catch (error) {
    const problem = error instanceof LlmError ? error.message : `Ollama at ${chatModel.host} could not be asked for its models.`;
    return [{ ...group, models: [], problem, unreachable: true, failure: error instanceof LlmError ? error.failure : 'unreachable' }];
  }
}
