/**
 * Accept negotiation of public content pages (spec api.md Conventions): an explicit acceptable `text/markdown`
 * returns Markdown; HTML is the default and wins a tie on quality values.
 */

export type PageFormat = 'html' | 'markdown';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const slash = range.indexOf('/');
    if (slash <= 0) continue;
    let q = 1;
    for (const p of params) {
      if (!p.startsWith('q=')) continue;
      const v = Number(p.slice(2));
      q = Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
    }
    out.push({ type: range.slice(0, slash), subtype: range.slice(slash + 1), q });
  }
  return out;
}

/** RFC 9110: the quality of a media type is that of the most specific range that matches it (0 when none does). */
function qualityOf(ranges: readonly MediaRange[], type: string, subtype: string, explicitOnly: boolean): number {
  let best = -1;
  let specificity = -1;
  for (const r of ranges) {
    const s = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' && r.subtype === '*' ? 0 : -1;
    if (s < 0 || (explicitOnly && s < 2)) continue;
    if (s > specificity || (s === specificity && r.q > best)) {
      specificity = s;
      best = r.q;
    }
  }
  return Math.max(0, best);
}

/** The format a page answers in for an `Accept` header (absent or empty: HTML). */
export function negotiatePage(accept: string | undefined): PageFormat {
  if (!accept?.trim()) return 'html';
  const ranges = parseAccept(accept);
  // Only a range naming text/markdown itself counts: `*/*` or `text/*` alone means "HTML is fine".
  const markdown = qualityOf(ranges, 'text', 'markdown', true);
  const html = qualityOf(ranges, 'text', 'html', false);
  return markdown > 0 && markdown > html ? 'markdown' : 'html';
}

/** Whether `Accept` names `text/html` itself as acceptable: a browser's navigation does, scripts and API clients rarely. */
export function asksForHtml(accept: string | undefined): boolean {
  return accept ? qualityOf(parseAccept(accept), 'text', 'html', true) > 0 : false;
}
