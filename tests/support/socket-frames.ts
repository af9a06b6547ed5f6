/** The server's escaping of text and attributes never leaves a literal `</hx-partial>` inside one. */
const partialPattern = /<hx-partial hx-target="([^"]*)" hx-swap="([^"]*)">([\s\S]*?)<\/hx-partial>/g;

/**
 * A frame of the chat socket as the page reads it: a data frame is its JSON, an HTML frame is one
 * `{ target, swap, content }` per `<hx-partial>` in it, as htmx swaps them.
 */
export function readFrame(frame: string): Array<Record<string, unknown>> {
  try {
    return [JSON.parse(frame) as Record<string, unknown>];
  } catch {
    // Not JSON: HTML, as htmx reads it.
  }
  const partials = [...frame.matchAll(partialPattern)].map(([, target, swap, content]) => ({ target, swap, content }));
  if (partials.map((partial) => `<hx-partial hx-target="${partial.target}" hx-swap="${partial.swap}">${partial.content}</hx-partial>`).join('') !== frame) {
    throw new Error(`an HTML frame that is not only <hx-partial>s: ${frame.slice(0, 300)}`);
  }
  return partials;
}
