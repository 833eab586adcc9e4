import type { StepOutcome } from './demo-runner.js';
import type { Style } from './style.js';
import { formatTable } from './table.js';

/** The summary table the demo ends with: one row per step, then a verdict line. */
export function renderSummary(outcomes: readonly StepOutcome[], totalMs: number, style: Style): string {
  const table = formatTable(
    ['#', 'step', 'expected', 'got', 'result', 'time'],
    outcomes.map((o, i) => [
      String(i + 1),
      o.title,
      o.expect,
      o.got,
      o.ok ? 'ok' : 'FAIL',
      `${(o.ms / 1000).toFixed(2)} s`,
    ]),
    {
      maxCell: 64,
      headerStyle: style.dim,
      paint: (row, col, cell) =>
        col === 4 ? (outcomes[row]?.ok === true ? style.green(cell) : style.red(cell)) : cell,
    },
  );
  const failed = outcomes.filter((o) => !o.ok).length;
  const verdict =
    failed === 0
      ? style.green(`All ${outcomes.length} steps did what they should, in ${(totalMs / 1000).toFixed(1)} s.`)
      : style.red(`${failed} of ${outcomes.length} steps did not do what they should.`);
  return `${style.bold('Summary')}\n${table}\n${verdict}\n`;
}

/** The summary as JSON (`adcp demo --json`). */
export function summaryToJson(outcomes: readonly StepOutcome[], totalMs: number): Record<string, unknown> {
  return {
    ok: outcomes.every((o) => o.ok),
    total_ms: totalMs,
    steps: outcomes.map((o) => ({ title: o.title, expect: o.expect, got: o.got, ok: o.ok, ms: o.ms })),
  };
}
