/** The benchmark's table: each figure beside the target it is held to. */
export interface Row {
  name: string;
  value: number | undefined;
  unit: string;
  target: number;
  /** `min`: the value must reach the target; `max`: it must stay under it. */
  kind: 'min' | 'max';
  note?: string;
}

const fmt = (n: number) =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 1 });

export function printTable(rows: Row[]): void {
  const lines = rows.map((r) => {
    const value = r.value === undefined ? 'not measured' : `${fmt(r.value)} ${r.unit}`;
    const target = `${r.kind === 'min' ? '≥' : '≤'} ${fmt(r.target)} ${r.unit}`;
    const verdict =
      r.value === undefined
        ? ''
        : (r.kind === 'min' ? r.value >= r.target : r.value <= r.target)
          ? 'ok'
          : 'MISSED';
    return [r.name, value, target, verdict, r.note ?? ''];
  });
  const header = ['figure', 'measured', 'target', '', 'notes'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const l of lines) console.log(line(l));
}
