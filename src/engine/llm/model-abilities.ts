import type { ChatModel, ModelDescription } from './chat-model.js';

/**
 * What a model can do beyond writing text, as its server says it. Ollama lists it in /api/show
 * (`capabilities`: "vision", "thinking", "tools"); an OpenAI-compatible server has no such list:
 * only seeing is known there (OPENAI_VISION_MODELS, llama.cpp's /props, LM Studio's own list),
 * so such a model is never marked as thinking or using tools, whatever it does.
 */
export interface ModelAbilities {
  sees: boolean;
  thinks: boolean;
  usesTools: boolean;
  /** Hearth sends it tools natively (TOOL_CALLS), rather than teaching it [TOOL:]. */
  callsNatively: boolean;
}

export const noAbilities: ModelAbilities = { sees: false, thinks: false, usesTools: false, callsNatively: false };

export function abilitiesOf(description: Pick<ModelDescription, 'capabilities' | 'toolCalls'>): ModelAbilities {
  const has = (capability: string) => description.capabilities.includes(capability);
  return { sees: has('vision'), thinks: has('thinking'), usesTools: has('tools'), callsNatively: description.toolCalls === 'native' };
}

/** The short words the picker adds after a model's name: "qwen3 · thinks · native tools" (tools sent natively) or "· tools" (taught [TOOL:]). */
export function abilityWords(abilities: ModelAbilities): string[] {
  const tools = abilities.callsNatively ? 'native tools' : abilities.usesTools ? 'tools' : '';
  return [abilities.sees ? 'sees' : '', abilities.thinks ? 'thinks' : '', tools].filter(Boolean);
}

/**
 * The abilities of these models, asked together and waited for at most `waitMs`: a model server
 * slow to describe its models must not hold the page. The chat model caches each description, so
 * a page after the first costs no request. `complete` is false when some did not answer in time;
 * a model that cannot be described has no abilities (a photo is refused rather than dropped).
 */
export async function abilitiesAmong(
  chatModel: Pick<ChatModel, 'describeModel'>,
  models: string[],
  waitMs: number,
): Promise<{ abilities: Map<string, ModelAbilities>; complete: boolean }> {
  const abilities = new Map<string, ModelAbilities>();
  const asked = Promise.all(
    models.map(async (model) => {
      const found = await chatModel.describeModel(model).then(abilitiesOf, () => noAbilities);
      abilities.set(model, found);
    }),
  ).then(() => true);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const complete = await Promise.race([
    asked,
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), waitMs);
    }),
  ]).finally(() => clearTimeout(timer));
  // A copy: answers arriving later must not change what the page was rendered from.
  return { abilities: new Map(abilities), complete };
}
