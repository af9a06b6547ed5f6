import type { ChatModel, ModelGroup } from '../../engine/llm/chat-model.js';
import { abilitiesAmong, abilityWords, noAbilities } from '../../engine/llm/model-abilities.js';
import { modelGroupsOf, parseModelId } from '../../engine/llm/model-router.js';
import { blindModelNames, pickerRefusal, seeingModel } from '../../providers/photos/vision-models.js';
import { noModelNotice, type ErrorNotice } from '../../replies/error-notice.js';

/*
 * The model picker (`select#model-select`, its options in views/partials/model-options.eta): one
 * group per model server, each model with what it can do ("qwen3 · thinks · tools").
 */

export interface ModelOption {
  /** What a conversation stores: an Ollama name, or `@<server id>/<model>`. */
  value: string;
  /** The name as a person says it (no ":latest"), then its abilities. */
  label: string;
  /** Can see photos (data-vision). */
  vision?: boolean;
  /** Thinks before it answers, and can be asked not to (data-thinks: the composer shows its switch). */
  thinks?: boolean;
}

export interface ModelPickerGroup {
  backendId: string;
  label: string;
  options: ModelOption[];
  /** A short line for a disabled option, and the whole message for its tooltip. */
  problem?: string;
  problemDetail?: string;
}

export interface ModelPicker {
  groups: ModelPickerGroup[];
  /** Shown in the thread only when nothing at all can be picked. */
  notice?: ErrorNotice;
  empty: boolean;
  emptyLabel: string;
  /** What the page says before sending photos to a model that cannot see ({model} for its name); '' when not known in time. */
  photoRefusal: string;
  photoModelNames: Record<string, string>;
  /** The model a photo refusal offers to switch to in one tap. */
  switchTo?: { value: string; name: string };
}

/**
 * How long the page waits for the servers to describe their models. Ollama answers /api/show in
 * milliseconds and each answer is kept, so this only matters for a server that hangs: then the
 * page comes without abilities, and the server decides about photos at send.
 */
const describeWaitMs = 3000;

function toPickerGroup(group: ModelGroup): ModelPickerGroup {
  const picker: ModelPickerGroup = {
    backendId: group.backendId,
    label: group.name,
    options: group.models.map((model) => ({ value: model.id, label: model.name.replace(/:latest$/, '') })),
  };
  if (group.problem) {
    picker.problem = !group.unreachable
      ? `${group.name} has no models`
      : group.failure === 'unauthorized'
        ? `${group.name} refused the API key`
        : group.failure === 'unreachable' || group.failure === 'timeout'
          ? `${group.name} is not answering`
          : `${group.name} could not list its models`;
    picker.problemDetail = group.problem;
  }
  return picker;
}

/** The picker for a page, `selected` chosen (kept, marked "not listed now", when its server no longer lists it). */
export async function buildModelPicker(chatModel: ChatModel, selected: string | undefined, waitMs = describeWaitMs): Promise<ModelPicker> {
  const modelGroups = await modelGroupsOf(chatModel);
  const groups = modelGroups.map(toPickerGroup);
  const empty = groups.every((group) => group.options.length === 0);
  const notice = empty ? noModelNotice(modelGroups) : undefined;
  // The picker's one line then: "No models installed" only when every server answered with none.
  const down = modelGroups.filter((group) => group.unreachable);
  const emptyLabel = down.length === 0 ? 'No models installed' : modelGroups.length === 1 ? `${down[0]!.name} is not answering` : 'No model server has a model to offer';
  const options = groups.flatMap((group) => group.options);
  const { abilities, complete } = await abilitiesAmong(chatModel, options.map((option) => option.value), waitMs);
  for (const option of options) {
    const found = abilities.get(option.value) ?? noAbilities;
    option.label = [option.label, ...abilityWords(found)].join(' · ');
    if (found.sees) option.vision = true;
    if (found.thinks) option.thinks = true;
  }
  if (selected && !options.some((option) => option.value === selected)) {
    // The chat's model is not listed now (server down, model removed): keep it selected, in its own group.
    const { backendId, name } = parseModelId(selected);
    const group = groups.find((candidate) => candidate.backendId === (backendId ?? 'ollama'));
    const option = { value: selected, label: `${name} (not listed now)` };
    if (group) group.options.unshift(option);
    else groups.push({ backendId: backendId ?? 'ollama', label: backendId ?? 'Ollama', options: [option] });
  }
  const all = groups.flatMap((group) => group.options);
  const photoRefusal = pickerRefusal(all, complete);
  const switchTo = complete ? seeingModel(all) : undefined;
  return {
    groups,
    empty,
    emptyLabel,
    photoRefusal,
    photoModelNames: photoRefusal ? blindModelNames(groups) : {},
    ...(notice ? { notice } : {}),
    ...(switchTo ? { switchTo } : {}),
  };
}
