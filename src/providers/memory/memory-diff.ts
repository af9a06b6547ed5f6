/**
 * The change a memory update would make, line by line: "+ " added, "- " removed, "  " kept.
 * Plain text for the approval card (escaped there like every other untrusted text). Both sides
 * are capped by MEMORY_MAX_BYTES before this runs, so the diff stays small. The diff library is
 * loaded with the first change asked about.
 */
export async function describeMemoryChange(before: string, after: string): Promise<string> {
  const { diffLines } = await import('diff');
  const lines: string[] = [];
  for (const part of diffLines(before.replace(/\r\n/g, '\n'), after.replace(/\r\n/g, '\n'))) {
    const marker = part.added ? '+ ' : part.removed ? '- ' : '  ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push(marker + line);
  }
  return lines.join('\n');
}
