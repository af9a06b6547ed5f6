/** A row id from a URL, a form or a socket command: a positive safe integer, else undefined. */
export function parseRecordId(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const id = Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
