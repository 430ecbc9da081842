/** The child of `inFreshProcess` (fresh-process.ts): runs one export of one bench module, writes its answer as JSON. */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [module, exportName, out] = process.argv.slice(2);
const mod = (await import(pathToFileURL(module).href)) as Record<string, () => Promise<unknown>>;
const run = mod[exportName];
if (typeof run !== 'function') throw new Error(`${module} exports no ${exportName}`);
writeFileSync(out, JSON.stringify(await run()));
process.exit(0);
