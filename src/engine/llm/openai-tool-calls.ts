import type { NativeToolCall } from './chat-model.js';

/** One streamed piece of an OpenAI tool call (`choices[0].delta.tool_calls[n]`). */
export interface ToolCallFragment {
  index?: number;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/** Longest arguments one call may gather (characters): past it the rest is dropped and the call fails to parse. */
const maximumArgumentsLength = 64 * 1024;
/** Most calls one reply may gather. */
const maximumCalls = 64;

/**
 * Joins an OpenAI stream's tool-call fragments into whole calls. The first fragment of a call
 * brings its index, id and name; later ones with the same index add pieces of the arguments
 * (JSON text). A fragment without an index continues the last call (some servers leave it out).
 * Bounded: at most `maximumCalls` calls of `maximumArgumentsLength` characters each.
 */
export class ToolCallJoiner {
  readonly #calls = new Map<number, { id?: string; name: string; arguments: string }>();
  #lastIndex = 0;

  push(fragments: readonly ToolCallFragment[] | null | undefined): void {
    for (const fragment of fragments ?? []) {
      const index = typeof fragment.index === 'number' ? fragment.index : this.#lastIndex;
      this.#lastIndex = index;
      let call = this.#calls.get(index);
      if (!call) {
        if (this.#calls.size >= maximumCalls) continue;
        call = { name: '', arguments: '' };
        this.#calls.set(index, call);
      }
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      const piece = fragment.function?.arguments ?? '';
      if (piece && call.arguments.length < maximumArgumentsLength) call.arguments += piece.slice(0, maximumArgumentsLength - call.arguments.length);
    }
  }

  /** The calls by index, those with a name; empty arguments read as `{}`. */
  finish(): NativeToolCall[] {
    return [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => call)
      .filter((call) => call.name !== '')
      .map((call) => ({ ...(call.id ? { id: call.id } : {}), name: call.name, arguments: call.arguments.trim() || '{}' }));
  }
}
