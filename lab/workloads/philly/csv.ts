// The trace CSVs are plain (no quoting, no embedded commas), so a split-based reader is enough.

export type CsvRow = Readonly<Record<string, string>>;

export function parseCsv(text: string, source: string): CsvRow[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const header = lines[0]?.split(',').map((cell) => cell.trim());
  if (header === undefined) throw new Error(`${source}: empty CSV`);
  return lines.slice(1).map((line, i) => {
    const cells = line.split(',');
    if (cells.length !== header.length) {
      throw new Error(`${source}:${i + 2}: expected ${header.length} columns, found ${cells.length}`);
    }
    return Object.fromEntries(header.map((name, c) => [name, (cells[c] ?? '').trim()]));
  });
}

export function numberColumn(row: CsvRow, column: string, source: string): number {
  const cell = row[column];
  const value = cell === undefined || cell === '' ? Number.NaN : Number(cell);
  if (!Number.isFinite(value)) throw new Error(`${source}: column "${column}" is not a number: "${cell ?? ''}"`);
  return value;
}

export function stringColumn(row: CsvRow, column: string, source: string): string {
  const cell = row[column];
  if (cell === undefined || cell === '') throw new Error(`${source}: column "${column}" is missing`);
  return cell;
}
