import { startRuntime } from '/work/main/lib/local/runtime';
import { services } from '/work/main/shared/services';
import { MarketGenerator } from '/work/main/shared/demo/market-generator';
import { deriveScan } from '/work/main/shared/domain/derived-scan';
import { mergeScan } from '/work/main/shared/domain/merge';
import { MarketStore } from '/work/main/shared/store/market-store';
import { decodeRows } from '/work/main/shared/store/page-codec';
import { rowsPk } from '/work/main/shared/store/keys';
const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: Date.now(), log: false });
const svc = services();
const gen = new MarketGenerator({ keys: 20000, entries: 60000, seed: 7 });
const store = new MarketStore(svc.ddb, svc.config.tableName, undefined, true);
let t = performance.now(); const lap = (n: string) => { const x = performance.now(); console.log(n, (x - t).toFixed(0)); t = x; };
const rows = new Map();
for (let i = 0; i < 5; i++) {
  const b = gen.nextBook(); const s = deriveScan(b);
  const m = mergeScan(rows, s, 'r' + (i % 3), i); lap('mergeScan');
  await store.writeRows(b.market, rows, m.changed); lap('writeRows');
  const items = await store.queryAll(rowsPk(b.market)); lap('query');
  const into = new Map(); for (const it of items) decodeRows(it.d, into); lap('decode');
}
await rt.close();
process.exit(0);
