/** The printed table: each figure beside its baseline and its target. */

export interface ReportRow {
  section: string;
  figure: string;
  hearth: string;
  baseline: string;
  target: string;
  /** undefined: no target for this row. */
  met?: boolean;
}

export interface TargetCheck {
  figure: string;
  value: number;
  unit: string;
  target: string;
  met: boolean;
}

export function formatNumber(value: number | undefined, digits = 1): string {
  if (value === undefined || !Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export const kb = (bytes: number) => `${formatNumber(bytes / 1024, 1)} KB`;
export const ms = (value: number | undefined, digits = 1) => `${formatNumber(value, digits)} ms`;
export const mb = (value: number | undefined) => `${formatNumber(value, 1)} MB`;

export function printTable(rows: ReportRow[], write: (line: string) => void): void {
  const headers = ['figure', 'Hearth', 'baseline', 'target', ''];
  const cells = rows.map((row) => [row.figure, row.hearth, row.baseline, row.target, row.met === undefined ? '' : row.met ? 'ok' : 'MISSED']);
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: string[]) => values.map((value, column) => value.padEnd(widths[column]!)).join('  ').trimEnd();
  let section = '';
  write(line(headers));
  write(widths.map((width) => '-'.repeat(width)).join('  '));
  rows.forEach((row, index) => {
    if (row.section !== section) {
      section = row.section;
      write(`[${section}]`);
    }
    write(line(cells[index]!));
  });
}
