/**
 * `npm run cost`: the monthly bill of a stage for the scenario of scripts/cost/scenario.ts, from figures
 * `npm run bench -- --cost --json PATH` measured, at the prices of scripts/cost/prices.json.
 *
 *   npm run cost -- --figures PATH [--figures PATH2 …] [--json OUT]
 *   npm run cost -- --measure [--days N] [--json OUT]     measures the figures first (about 30 minutes)
 *
 * `--json OUT` writes `{total_usd_month, lines: [{name, usd_month}], …}`. Exit 1 when a figure is missing
 * (the message names it), 2 on bad arguments.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CostReport, costModel, type Figure, MissingFigureError, type Prices } from './model';
import { SCENARIO } from './scenario';
import { synthesizedTemplate, type TemplateFacts, templateFacts } from './template';
import { costTopology } from './topology';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The target: a stage's month under this (CloudFront egress of signed-in answers, sockets and hourly files excluded). */
export const TARGET_USD = 150;

const USAGE = `usage: npm run cost -- --figures PATH [--figures PATH …] [--json OUT]
       npm run cost -- --measure [--days N] [--json OUT]
The figures are what \`npm run bench -- --cost --json PATH\` writes (about 30 minutes: it simulates 30 days).`;

function fail(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

function parseArgs(argv: string[]): { figures: string[]; json?: string; measure: boolean; days: number } {
  const out = { figures: [] as string[], json: undefined as string | undefined, measure: false, days: 30 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) fail(2, `${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--figures') out.figures.push(value());
    else if (a === '--json') out.json = value();
    else if (a === '--measure') out.measure = true;
    else if (a === '--days') out.days = Number(value());
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else fail(2, `unknown argument ${a}\n${USAGE}`);
  }
  return out;
}

/** Figures of bench JSON files (`[{name, value, …}]`); a later file's figure replaces an earlier one's. */
export function readFigures(paths: readonly string[]): Figure[] {
  const byName = new Map<string, number>();
  for (const path of paths) {
    let list: unknown;
    try {
      list = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      fail(2, `cannot read figures from ${path}: ${(err as Error).message}`);
    }
    if (!Array.isArray(list)) fail(2, `${path} is not a bench figures file (an array of {name, value})`);
    for (const f of list as Array<{ name?: unknown; value?: unknown }>)
      if (typeof f.name === 'string' && typeof f.value === 'number') byName.set(f.name, f.value);
  }
  return [...byName].map(([name, value]) => ({ name, value }));
}

async function measure(days: number): Promise<Figure[]> {
  console.log(`measuring the cost figures on the local runtime (events, then ${days} simulated days; about ${Math.round(days)} minutes)…`);
  const { benchCostUnits, itemReadFigures } = await import('../../test/bench/cost-units');
  return [...(await benchCostUnits(days)), ...(await itemReadFigures())];
}

export function printReport(report: CostReport, prices: Prices): void {
  const usd = (n: number) => `$${n.toFixed(2)}`;
  console.log(
    `scenario: ${SCENARIO.markets} markets × ${SCENARIO.mergesPerMarketPerDay} merges a day, ${SCENARIO.apiReadsPerDay / 1e6} M API reads a day, ${SCENARIO.socketsAllDay} sockets all day, hourly files read by ${SCENARIO.hourlyFileClients} clients; prices us-east-1 as of ${prices.as_of}`,
  );
  console.log(`${'line'.padEnd(36)} ${'USD/month'.padStart(10)}  quantity`);
  for (const l of report.lines) console.log(`${l.name.padEnd(36)} ${usd(l.usd_month).padStart(10)}  ${l.detail}`);
  console.log(
    `${'total'.padEnd(36)} ${usd(report.total_usd_month).padStart(10)}  target < $${TARGET_USD} (CloudFront egress of signed-in answers, sockets and hourly files excluded): ${report.total_usd_month < TARGET_USD ? 'met' : 'MISSED'}`,
  );
  console.log(`biggest line: ${report.biggest} (${usd(report.lines[0].usd_month)}). To halve it: ${report.halve}.`);
  console.log(`left out: ${LEFT_OUT.join('; ')}.`);
}

/** What the bill does not price (docs/cost.md says why). */
export const LEFT_OUT = [
  'free tiers and savings plans',
  'AWS support plans',
  'CloudFront egress of signed-in answers, sockets and hourly files (the anonymous reads’ egress is in)',
  'data transfer between availability zones and to the internet from the APIs (behind CloudFront it is CloudFront’s)',
  'X-Ray traces retrieved or scanned (an operator’s queries), CloudWatch API calls of the dashboard and console, Logs Insights queries',
  'the dev stage and previews (no WAF, tracing off: their own, smaller bill), Route 53 and certificates (ACM’s public certificates are free)',
  'S3 storage of access logs (CloudFront and bucket access logs)',
  'the website’s static files (app bundle, service worker, icons) served from the site bucket',
];

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.figures.length === 0 && !args.measure)
    fail(
      2,
      `npm run cost needs measured figures: pass --figures PATH (from \`npm run bench -- --cost --json PATH\`) or --measure to measure them now.\n${USAGE}`,
    );
  const prices = JSON.parse(readFileSync(join(HERE, 'prices.json'), 'utf8')) as Prices;
  const figures = [...(args.measure ? await measure(args.days) : []), ...readFigures(args.figures)];
  // Alarms, dashboards, secrets, WAF rules and tracing are counted in production's synthesized template.
  const facts: TemplateFacts = templateFacts(await synthesizedTemplate('production'));
  let report: CostReport;
  try {
    report = costModel(figures, SCENARIO, prices, costTopology(), facts);
  } catch (err) {
    if (err instanceof MissingFigureError) fail(1, err.message);
    throw err;
  }
  printReport(report, prices);
  if (args.json) {
    writeFileSync(
      args.json,
      `${JSON.stringify({ total_usd_month: report.total_usd_month, lines: report.lines.map(({ name, usd_month }) => ({ name, usd_month })), biggest: report.biggest, halve: report.halve, prices_as_of: prices.as_of, scenario: SCENARIO }, null, 2)}\n`,
    );
    console.log(`bill written to ${args.json}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
