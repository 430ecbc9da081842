/**
 * The one stylesheet of the site, inlined in the head of every HTML page: a page is one request (its cache rules
 * are the page's own) and needs nothing else to look right. The app (app/) draws inside these pages and
 * carries no CSS of its own, so its forms, buttons and status lines are styled here too (issue 24 point 1).
 * Light and dark schemes; the charts are styled here too, their presentation attributes being only the
 * fallback for an SVG read without the page.
 */
import { REFERENCE_CSS } from './reference-style';
import { MARKET_CSS } from './style-market';

const SITE_CSS = `
:root{color-scheme:light dark;--bg:#f6f8fa;--card:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--accent:#0969da;--area:rgba(9,105,218,.12);--gold:#8a6500;--silver:#57606a;--copper:#a0461b;--button:#0969da;--bad:#cf222e;--good:#1a7f37}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#151b23;--fg:#e6edf3;--muted:#9198a1;--line:#30363d;--accent:#4493f8;--area:rgba(68,147,248,.18);--gold:#e3b341;--silver:#b1bac4;--copper:#f0883e;--button:#1f6feb;--bad:#ff7b72;--good:#3fb950}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif}
a{color:var(--accent);text-underline-offset:2px}
.site{border-bottom:1px solid var(--line);background:var(--card)}
.site nav{max-width:1000px;margin:0 auto;padding:10px 16px;display:flex;gap:8px;align-items:baseline;flex-wrap:wrap;font-size:.9375rem}
.site .home{font-weight:600;color:var(--fg);text-decoration:none}
.site .crumb{color:var(--muted)}
main{max-width:1000px;margin:0 auto;padding:24px 16px 48px}
h1{font-size:1.75rem;line-height:1.25;margin:0}
h2{font-size:1.125rem;margin:2rem 0 .75rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px}
.item-head{display:flex;gap:16px;align-items:center;margin-bottom:16px}
.item-head img{width:56px;height:56px;border-radius:8px;border:1px solid var(--line);background:var(--card);flex:none}
.sub{margin:.25rem 0 0;color:var(--muted)}
.summary{display:flex;flex-wrap:wrap;gap:4px 24px;align-items:baseline}
.price{margin:0;font-size:2rem;font-weight:650;font-variant-numeric:tabular-nums;white-space:nowrap}
.price .per{font-size:1rem;font-weight:400;color:var(--muted)}
.summary #observation{margin:0;color:var(--muted)}
.g{color:var(--gold)}.s{color:var(--silver)}.c{color:var(--copper)}
.q0 h1{color:#6e7781}.q2 h1{color:#1a7f37}.q3 h1{color:#0969da}.q4 h1{color:#8250df}.q5 h1{color:#bc4c00}
.charts{display:grid;gap:16px;margin-top:16px;grid-template-columns:repeat(auto-fit,minmax(min(100%,440px),1fr))}
figure{margin:0}
figcaption{font-weight:600;margin-bottom:8px}
.chart{display:block;width:100%;height:auto}
.chart .grid{stroke:var(--line)}
.chart .axis{stroke:var(--muted)}
.chart .labels{fill:var(--muted);font-family:inherit;font-variant-numeric:tabular-nums}
.chart .line{stroke:var(--accent)}
.chart .area{fill:var(--area);fill-opacity:1}
.chart .dots{fill:var(--accent)}
@media (max-width:600px){.chart .labels{font-size:17px}.chart .minor{display:none}.summary .price{font-size:1.5rem}}
.chart-empty{margin:0;padding:48px 0;text-align:center;color:var(--muted)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:6px 24px;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;background:var(--card)}
caption{text-align:left;color:var(--muted);padding:0 0 8px;font-size:.875rem}
th,td{padding:6px 12px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
thead th{font-size:.875rem;color:var(--muted);font-weight:600}
th:first-child,td:first-child{text-align:left}
tbody th{font-weight:400}
.table-scroll{overflow-x:auto;position:relative}
details{margin-top:16px}
summary{cursor:pointer;color:var(--accent)}
ul.pills{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:8px}
ul.pills a{display:inline-block;padding:4px 12px;border:1px solid var(--line);border-radius:999px;background:var(--card);text-decoration:none}
.markets{display:grid;gap:16px;align-items:start;grid-template-columns:repeat(auto-fit,minmax(min(100%,300px),1fr))}
.markets h3{margin:0 0 8px;font-size:1rem}
.markets ol{margin:0;padding-left:1.25rem}
.markets li{margin-bottom:6px}.markets li .muted{font-size:.875rem}
.markets .row{display:flex;justify-content:space-between;gap:12px}
.markets .row span{font-variant-numeric:tabular-nums;white-space:nowrap}
.muted{color:var(--muted)}
footer{margin-top:2rem;color:var(--muted);font-size:.875rem}
.site .account-nav{margin-left:auto;display:flex;gap:12px;flex-wrap:wrap}
.stack{display:grid;gap:16px}.stack>*{margin:0;min-width:0}
.card h2{margin:0 0 12px}
.field{display:grid;gap:4px;max-width:360px}
.field label{font-weight:600}
input,select,button{font:inherit;color:inherit}
input,select{padding:8px 10px;border:1px solid var(--muted);border-radius:6px;background:var(--bg);min-height:44px}
input:focus-visible,select:focus-visible,button:focus-visible,a:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
button{padding:8px 16px;min-height:44px;border:1px solid var(--line);border-radius:6px;background:var(--card);cursor:pointer}
button.primary{background:var(--button);border-color:var(--button);color:#fff;font-weight:600}
button:disabled{opacity:.6;cursor:default}
.actions{display:flex;gap:8px;flex-wrap:wrap}
.hint{margin:0;color:var(--muted);font-size:.875rem}
.status:empty{display:none}
.status[data-tone=error]{color:var(--bad)}.status[data-tone=ok]{color:var(--good)}
.prompt{display:grid;gap:12px;justify-items:start}.prompt p{margin:0}
ul.keys{list-style:none;padding:0;margin:0 0 16px;display:grid;gap:8px}
ul.keys .row{display:flex;justify-content:space-between;align-items:center;gap:12px;flex-wrap:wrap}
code.key{display:block;padding:8px;border:1px solid var(--line);border-radius:6px;overflow-wrap:anywhere;font-size:.875rem}
.pill{display:inline-block;padding:2px 10px;border:1px solid var(--line);border-radius:999px;font-size:.875rem}
h1[tabindex="-1"]:focus{outline:none}
ul.alerts,ul.watchlist,ul.boards,ul.widgets,ul.suggestions,ul.subscriptions{list-style:none;padding:0;margin:0;display:grid;gap:8px}
ul.watchlist .row,ul.widgets .row,ul.subscriptions .row{display:flex;justify-content:space-between;align-items:center;gap:12px;flex-wrap:wrap}
ul.suggestions button{width:100%;max-width:360px;text-align:left}
ul.hits{margin:0;padding-left:1.25rem}
.field.check{display:flex;align-items:center;gap:8px;max-width:none}.field.check input{min-height:auto;width:20px;height:20px}
.field-error{margin:0;color:var(--bad);font-size:.875rem}
input[aria-invalid=true],select[aria-invalid=true]{border-color:var(--bad)}
fieldset{border:1px solid var(--line);border-radius:6px;padding:12px}fieldset:disabled{opacity:.6}
.fired{display:grid;gap:8px}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`
  .trim()
  .replace(/\n/g, '');

/** The site's styles, then the market views' and the API reference's (each scoped to its classes). */
export const PAGE_CSS = SITE_CSS + MARKET_CSS + REFERENCE_CSS;
