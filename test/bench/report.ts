/**
 * The bench's table and exit rule (test/bench/run.ts): a figure is printed with its target and check; a figure
 * that could not be measured (its bench threw, it gave no finite number, or it was never printed) is printed
 * as MISSING and never replaced by another figure; the run exits 1 when any figure is MISSING and 0 when every
 * figure was measured, even if a target was missed (MISSED is printed; a busy machine must not fail a build).
 */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** Human-readable target, e.g. "<= 2.5". */
  target: string;
  /** Numeric bounds for the check column (a value past either is MISSED). */
  max?: number;
  min?: number;
  note?: string;
}

export type Reported = { name: string; value: number | null; unit: string; target: string };

/** One printed row as the Markdown table has it: the check column and the note beside the figure. */
export type Row = Reported & { check: string; note: string };

/** Where and when a run was made, for the head of its Markdown table (docs/figures.md holds the last whole run). */
export interface RunFacts {
  started: Date;
  ended: Date;
  commit: string;
  node: string;
  /** `os.loadavg()[0]` at the start and at the end. */
  loadStart: number;
  loadEnd: number;
  cpus: number;
}

export class FigureReport {
  readonly figures: Reported[] = [];
  readonly missing: string[] = [];
  readonly rows: Row[] = [];
  private readonly printed = new Set<string>();

  constructor(
    /** Every figure the run must print. */
    private expected: readonly string[],
    private readonly print: (line: string) => void = console.log,
  ) {
    this.row('figure', 'value', 'unit', 'target', 'check', '');
  }

  add(f: Figure): void {
    if (!this.expected.includes(f.name)) throw new Error(`figure ${f.name} is not in the bench's list`);
    if (!Number.isFinite(f.value)) {
      this.miss(f.name, `not a finite number (${f.value})`);
      return;
    }
    if (this.printed.has(f.name)) throw new Error(`figure ${f.name} printed twice`);
    this.printed.add(f.name);
    this.figures.push({ name: f.name, value: f.value, unit: f.unit, target: f.target });
    const check = f.max === undefined && f.min === undefined ? '' : f.value <= (f.max ?? Infinity) && f.value >= (f.min ?? -Infinity) ? 'ok' : 'MISSED';
    this.rows.push({ name: f.name, value: f.value, unit: f.unit, target: f.target, check, note: f.note ?? '' });
    this.row(f.name, String(f.value), f.unit, f.target, check, f.note ?? '');
  }

  /** A figure of an opt-in bench (`--cost`): printed and written like the others, not required. */
  addExtra(f: Figure): void {
    if (!this.expected.includes(f.name)) this.expected = [...this.expected, f.name];
    this.add(f);
  }

  miss(name: string, why: string): void {
    if (this.printed.has(name)) return;
    this.printed.add(name);
    this.missing.push(name);
    this.figures.push({ name, value: null, unit: '', target: '' });
    this.rows.push({ name, value: null, unit: '', target: '', check: 'MISSING', note: why });
    this.row(name, '-', '', '', 'MISSING', why);
  }

  /** Runs one bench; if it throws, every figure in `names` it did not print is MISSING, and the run goes on. */
  async section(names: readonly string[], run: () => Promise<void> | void): Promise<void> {
    try {
      await run();
    } catch (err) {
      const why = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 160);
      for (const n of names) this.miss(n, why);
    }
  }

  /** Marks every expected figure not printed as MISSING; answers the exit code (1 when any is missing). */
  finish(): number {
    for (const n of this.expected) this.miss(n, 'never printed');
    return this.missing.length > 0 ? 1 : 0;
  }

  private row(name: string, value: string, unit: string, target: string, check: string, note: string): void {
    this.print(`${name.padEnd(32)} ${value.padStart(10)} ${unit.padEnd(6)} ${target.padEnd(10)} ${check.padEnd(7)} ${note}`.trimEnd());
  }
}

/**
 * The run as one Markdown table headed by its date, commit, Node and the machine's load, as docs/figures.md
 * keeps the last whole run (`npm run bench -- --markdown PATH`): figures are the bench's output, not prose.
 */
export function renderMarkdown(rows: readonly Row[], facts: RunFacts): string {
  const hm = (d: Date) => d.toISOString().slice(11, 16);
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `Run of ${facts.started.toISOString().slice(0, 10)}, ${hm(facts.started)}–${hm(facts.ended)} UTC, commit ${facts.commit}, Node ${facts.node}, ` +
      `${facts.cpus} cores, load average ${facts.loadStart.toFixed(1)} at the start and ${facts.loadEnd.toFixed(1)} at the end.`,
    '',
    '| figure | value | unit | target | check | note |',
    '|---|---:|---|---|---|---|',
    ...rows.map((r) => `| \`${r.name}\` | ${r.value ?? '–'} | ${r.unit} | ${cell(r.target)} | ${r.check} | ${cell(r.note)} |`),
  ];
  return `${lines.join('\n')}\n`;
}
