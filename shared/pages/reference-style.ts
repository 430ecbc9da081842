/**
 * The API reference's styles (issue 24 point 8), kept apart from the site's stylesheet so the two merge
 * easily; only the site's CSS variables, so light and dark follow. Long paths, names and patterns wrap; code
 * examples scroll inside their own box, never the page.
 */
export const REFERENCE_CSS = `
.ref code,.ref pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.875em}
.ref code{overflow-wrap:anywhere}
.ref h2{margin-top:2.5rem}
.ref h3{font-size:1rem;margin:0 0 .5rem;line-height:1.4}
.ref h4{font-size:.9375rem;margin:1.25rem 0 .375rem}
.ref-toc{margin-top:1.5rem}
.ref-toc h2{margin:0 0 .5rem}
.ref-toc ul{list-style:none;margin:0;padding:0}
.ref-toc>ul>li{margin-bottom:.75rem;break-inside:avoid}
.ref-toc>ul>li>a{font-weight:600}
.ref-toc li li{margin:.125rem 0 .125rem .75rem}
.ref-toc li li a{text-decoration:none;color:var(--fg)}
@media (min-width:760px){.ref-toc>ul{columns:2;column-gap:32px}}
.ref-op{margin:0 0 16px;min-width:0}
.ref-op p{margin:.375rem 0}
.ref-anchor{color:inherit;text-decoration:none}
.ref-path{font-size:.9375rem;font-weight:600}
.ref-verb{display:inline-block;min-width:3.25em;text-align:center;padding:0 4px;margin-right:2px;border:1px solid currentColor;border-radius:4px;font:600 .75rem/1.5 ui-monospace,Menlo,Consolas,monospace;color:var(--accent)}
.ref-verb-post{color:var(--gold)}.ref-verb-put,.ref-verb-patch{color:var(--silver)}.ref-verb-delete{color:var(--copper)}
.ref-status{display:inline-block;padding:0 6px;border:1px solid var(--line);border-radius:4px;font:600 .8125rem/1.5 ui-monospace,Menlo,Consolas,monospace;color:var(--fg);background:var(--bg)}
.ref-answer{margin:.5rem 0;padding:.5rem 0 0;border-top:1px solid var(--line)}
.ref-answer-head{margin:0 0 .25rem;font-weight:600}
summary.ref-answer-head{color:var(--fg)}
.ref-media,.ref-label{color:var(--muted);font-size:.875rem}
.ref pre{margin:.375rem 0 .75rem;padding:8px 12px;max-width:100%;max-height:28rem;overflow:auto;background:var(--bg);border:1px solid var(--line);border-radius:6px;line-height:1.45}
.ref-schema p{margin:.25rem 0}
.ref-schema ul{list-style:none;margin:0;padding:0 0 0 .875rem;border-left:1px solid var(--line)}
.ref-schema>ul{padding-left:0;border-left:0}
.ref-schema li{margin:.25rem 0;overflow-wrap:anywhere}
.ref-schema li>code:first-child{font-weight:600}
.ref-schema i,.ref-schema small{color:var(--muted);font-size:.875rem;font-style:normal}
.ref-schema li>span,.ref-schema li>small{display:block}
.ref-schema li>span{font-size:.9375rem}
.ref-schema b{color:var(--copper);font-size:.75rem}
.ref-schema small code{font-size:.8125rem}
`
  .trim()
  .replace(/\n/g, '');
