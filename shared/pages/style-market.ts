/**
 * The market routes' rules (app/routes/market*.ts), appended to the pages' one stylesheet (./style.ts): the
 * chart box the chart library fills (its height set here, so a phone keeps the chart readable), the resolution
 * buttons, the freshness badges, search results and the compare table's cheapest row. Colours are the
 * stylesheet's variables, so light and dark follow.
 */
export const MARKET_CSS = `
:root{--up:#1a7f37;--down:#cf222e}
@media (prefers-color-scheme:dark){:root{--up:#3fb950;--down:#f85149}}
.market-view{display:grid;gap:16px;grid-template-columns:minmax(0,1fr)}.market-view>*{min-width:0}.market-view .card>h2:first-child{margin-top:0}
ul.market-cards{list-style:none;padding:0;margin:16px 0 0}.market-cards .card{padding:12px 16px}.market-cards p{margin:8px 0 0}
.price-chart{height:340px;width:100%;min-width:0;position:relative;overflow:hidden}
@media (max-width:600px){.price-chart{height:260px}}
.chart-figure figcaption{font-weight:400;font-size:.875rem;margin:8px 0 0}
.toolbar{display:flex;gap:8px;flex-wrap:wrap;margin-bottom:12px}
.toolbar button{font:inherit;padding:6px 14px;border-radius:999px;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer;min-height:44px}
.toolbar button[aria-pressed=true]{background:var(--accent);border-color:var(--accent);color:var(--card)}
.badge{display:inline-block;padding:0 8px;border-radius:999px;border:1px solid var(--line);font-size:.8125rem;font-weight:600;color:var(--muted);margin-left:6px}
.badge.live{color:var(--up);border-color:var(--up);margin-left:0}
.freshness{margin:0}.freshness .badge{margin:0 6px 0 0}
.freshness-note{display:grid;gap:8px}
ol.results{margin:12px 0 0;padding-left:1.5rem}ol.results li{margin-bottom:6px}
tr.cheapest th,tr.cheapest td{font-weight:600}
.field.inline{display:flex;gap:8px;align-items:center;flex-wrap:wrap;max-width:none}.field.inline select{max-width:100%}
`
  .trim()
  .replace(/\n/g, '');
