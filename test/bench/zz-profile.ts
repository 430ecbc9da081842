import { startRuntime } from '../../lib/local/runtime';
import { DAY_MS, dayOf, hourOf } from '../../shared/clock';
import { services } from '../../shared/services';
import { readSources } from '../../shared/market/sources';
import { marketHistory, marketIntraday } from '../../shared/market/market-read';
import { MarketStore } from '../../shared/store/market-store';

const MARKET = 'forever.rp.horde.us';
const NOW = Date.UTC(2026, 10, 2, 10, 30, 0);
const rt = await startRuntime({ port: 0, dataDir: '/tmp/rb', clock: 'manual', clockStart: NOW, log: false });
const svc = services();
const meta = await new MarketStore(svc.ddb, svc.config.tableName).meta(MARKET);
console.log('seq', meta.seq);
if (meta.seq === 0) {
  const m = await import('./reads');
  // @ts-ignore
  await m.fillFor(rt);
}
for (let i = 0; i < 6; i++) {
  const src = readSources(svc);
  let t = performance.now(); let c = process.cpuUsage();
  const lap = (m: string) => { const n = performance.now(); const cc = process.cpuUsage(c); console.log(m, Math.round(n - t), 'ms wall', Math.round((cc.user + cc.system) / 1000), 'ms cpu'); t = n; c = process.cpuUsage(); };
  const items = await marketHistory(src, MARKET, dayOf(NOW) - 30 + (process.env.COLD ? i : 0), NOW, { withVolume: true }); lap(`marketHistory ${items.text.length}`);
  const intr = await marketIntraday(src, MARKET, hourOf(NOW) - 24, hourOf(NOW)); lap('intraday');
  const t2 = JSON.stringify(intr); lap(`stringify ${t2.length}`);
}
await rt.close();
process.exit(0);
