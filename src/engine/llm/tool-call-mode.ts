import type { Config } from '../../config/config.js';
import type { ChatModel, ModelDescription, ToolCallMode } from './chat-model.js';

export type ToolCallSettings = Pick<Config, 'toolCalls' | 'toolCallsNativeModels' | 'toolCallsInlineModels'>;

/**
 * How one model is given tools. A model listed in TOOL_CALLS_INLINE_MODELS is taught [TOOL:]
 * (its tool template is broken), one in TOOL_CALLS_NATIVE_MODELS gets them natively; otherwise
 * TOOL_CALLS decides, and `auto` goes native only where the server says the model calls tools
 * (Ollama's `tools` capability; an OpenAI-compatible server never says so).
 */
export function toolCallModeOf(settings: ToolCallSettings, modelId: string, capabilities: readonly string[]): ToolCallMode {
  if (settings.toolCallsInlineModels.includes(modelId)) return 'inline';
  if (settings.toolCallsNativeModels.includes(modelId)) return 'native';
  if (settings.toolCalls !== 'auto') return settings.toolCalls;
  return capabilities.includes('tools') ? 'native' : 'inline';
}

/** The chat model with each description saying how that model is given tools (for the reply and the picker). */
export function withToolCallModes<Model extends ChatModel>(chatModel: Model, settings: ToolCallSettings): Model {
  return {
    ...chatModel,
    async describeModel(name: string): Promise<ModelDescription> {
      const description = await chatModel.describeModel(name);
      return { ...description, toolCalls: toolCallModeOf(settings, name, description.capabilities) };
    },
  };
}
