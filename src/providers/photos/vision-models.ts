import type { ChatModel } from '../../engine/llm/chat-model.js';
import { parseModelId } from '../../engine/llm/model-router.js';

/**
 * Which models can see photos (Ollama's `vision` capability from /api/show). The chat model
 * caches each description, so asking again for the picker or a send costs no request.
 */
export interface VisionModels {
  canSee(model: string): Promise<boolean>;
  /** Of these models, the ones that can see. */
  among(models: string[]): Promise<Set<string>>;
  /**
   * What a send with photos to `model`, which cannot see, is told (the installed vision models
   * named), and the model it can switch to in one tap, when one can see.
   */
  refusal(model: string): Promise<VisionRefusal>;
}

export interface VisionRefusal {
  text: string;
  switchTo?: { value: string; name: string };
}

/** A model's name as a person says it: no server prefix, no ":latest". */
export function shortModelName(id: string): string {
  return parseModelId(id).name.replace(/:latest$/, '');
}

/**
 * The one wording of "this model cannot see", used by the picker (shown before sending) and the server.
 * With no model that can see, it says how to get one where the person's models are: `ollama pull`
 * means nothing to someone whose models run on llama.cpp or vLLM, which cannot say they see.
 */
export function visionRefusalText(model: string, visionModels: string[], openAiServers = false): string {
  const names = visionModels.map(shortModelName);
  if (names.length > 0) return `${shortModelName(model)} cannot see photos. Models here that can: ${names.join(', ')}`;
  const howToGetOne = openAiServers
    ? 'Remove the photos, or add a model that can see: in Ollama, for example ollama pull gemma3; on another model server, load a vision model there and name it in OPENAI_VISION_MODELS (or visionModels in OPENAI_BACKENDS).'
    : 'Install one (for example: ollama pull gemma3) or remove the photos.';
  return `${shortModelName(model)} cannot see photos, and no model here can. ${howToGetOne}`;
}

/** Whether any of these model ids is on an OpenAI-compatible server (`@<backend>/<model>`). */
const onOpenAiServer = (models: string[]) => models.some((model) => parseModelId(model).backendId !== undefined);

export function createVisionModels(chatModel: ChatModel): VisionModels {
  async function canSee(model: string): Promise<boolean> {
    try {
      return (await chatModel.describeModel(model)).capabilities.includes('vision');
    } catch {
      // A model that cannot be described is treated as blind: the photo is refused, not dropped.
      return false;
    }
  }

  async function among(models: string[]): Promise<Set<string>> {
    const answers = await Promise.all(models.map(async (model) => [model, await canSee(model)] as const));
    return new Set(answers.filter(([, sees]) => sees).map(([model]) => model));
  }

  return {
    canSee,
    among,
    async refusal(model) {
      const installed = await chatModel.listModels().catch(() => [] as string[]);
      const seeing = await among(installed);
      const seeingModels = installed.filter((name) => seeing.has(name));
      const text = visionRefusalText(model, seeingModels, onOpenAiServer([model, ...installed]));
      const first = seeingModels[0];
      return first === undefined ? { text } : { text, switchTo: { value: first, name: shortModelName(first) } };
    },
  };
}

/** Stands for the picked model in the refusal the page is given (public/photos.js fills it in). */
export const modelPlaceholder = '{model}';

/**
 * The refusal the picker gives the page, with {model} in place of the model's name: the page says
 * it before sending, in the server's words. '' when the server could not say in time which models
 * see: then the page warns about nothing and the server decides at send.
 */
export function pickerRefusal(options: Array<{ value: string; vision?: boolean }>, known: boolean): string {
  if (!known) return '';
  return visionRefusalText(
    modelPlaceholder,
    options.filter((option) => option.vision).map((option) => option.value),
    onOpenAiServer(options.map((option) => option.value)),
  );
}

/** The model a chat that cannot see photos is switched to in one tap: the first that can (Ollama's first). */
export function seeingModel(options: Array<{ value: string; vision?: boolean }>): { value: string; name: string } | undefined {
  const seeing = options.find((option) => option.vision);
  return seeing && { value: seeing.value, name: shortModelName(seeing.value) };
}

/**
 * The short name of each picker option that cannot see, by its value: the page puts it in the
 * refusal for {model}, so the naming rule (shortModelName) is not copied into public/photos.js.
 */
export function blindModelNames(groups: Array<{ options: Array<{ value: string; vision?: boolean }> }>): Record<string, string> {
  const blind = groups.flatMap((group) => group.options).filter((option) => !option.vision);
  return Object.fromEntries(blind.map((option) => [option.value, shortModelName(option.value)]));
}
