import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserPage, findChromium, launchChromium } from '../support/chromium';
import { type Local, startLocal } from '../support/local';

/**
 * Issue 24 point 8: the API reference served by the local runtime shows every operation of the OpenAPI
 * document the same runtime serves at `/openapi.full.json` (parameters, body, each answer status, an example),
 * negotiates Markdown and answers HEAD like the other pages; in headless Chromium it is readable on a phone
 * (390 px: the page never scrolls sideways, long schemas and examples wrap or scroll in their own box) and on
 * a desktop, light and dark, with no script. `PAGE_SHOTS=<dir>` keeps the screenshots for a person to look at.
 */

const CHROMIUM = findChromium();
const SHOTS = process.env.PAGE_SHOTS;
if (!CHROMIUM) console.warn('SKIPPED reference-page browser checks: no Chromium binary (install Debian\'s "chromium" package or set CHROMIUM_BIN)');

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];
/** axe-core's browser script (the engine @axe-core/playwright injects). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Operation {
  id: string;
  method: string;
  path: string;
  params: string[];
  body: boolean;
  statuses: string[];
}

describe('the API reference', () => {
  let local: Local;
  let browser: Browser | undefined;
  let operations: Operation[];
  let ipSeq = 0;
  const page = async (path: string, init: { method?: string; accept?: string } = {}) => {
    const headers: Record<string, string> = { 'x-forwarded-for': `198.51.100.${++ipSeq % 250}` };
    if (init.accept) headers.accept = init.accept;
    const res = await fetch(`${local.base}${path}`, { method: init.method ?? 'GET', headers });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  beforeAll(async () => {
    local = await startLocal();
    const doc = JSON.parse((await page('/openapi.full.json')).text);
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((method) => {
        const op = (item as Record<string, { operationId: string; parameters?: Array<{ name: string }>; requestBody?: unknown; responses: object }>)[method];
        return {
          id: op.operationId,
          method: method.toUpperCase(),
          path,
          params: (op.parameters ?? []).map((p) => p.name),
          body: op.requestBody !== undefined,
          statuses: Object.keys(op.responses),
        };
      }),
    );
    if (CHROMIUM) browser = await launchChromium(CHROMIUM);
  });
  afterAll(async () => {
    await browser?.close();
    await local?.close();
  });

  it('shows every operation of the served OpenAPI document with its parameters, body, answers and an example request', async () => {
    const res = await page('/docs/api/reference');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(operations.length).toBeGreaterThan(70);
    for (const op of operations) {
      const start = res.text.indexOf(`id="${op.id}"`);
      expect(start, op.id).toBeGreaterThan(0);
      const card = res.text.slice(start, res.text.indexOf('</section>', start));
      expect(card).toContain(`>${op.method}</span> <code class="ref-path">${op.path}</code>`);
      for (const name of op.params) expect(card, `${op.id} ${name}`).toContain(`<code>${name}</code>`);
      expect(card.includes('Request body'), op.id).toBe(op.body);
      for (const status of op.statuses) expect(card, `${op.id} ${status}`).toContain(`>${status}</span>`);
      expect(card).toMatch(/<h4>Example request<\/h4><pre class="ref-example" tabindex="0"><code>curl /);
      expect(res.text).toContain(`href="#${op.id}"`);
    }
  });

  it('answers Markdown when asked, the same at /docs/api/reference.md, and HEAD like GET; both formats vary on Accept', async () => {
    const md = await page('/docs/api/reference', { accept: 'text/markdown' });
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.headers.get('vary')).toBe('Accept');
    expect((await page('/docs/api/reference.md')).text).toBe(md.text);
    for (const op of operations) expect(md.text, op.id).toContain(`\n### ${op.method} ${op.path}\n`);
    expect(md.text).toContain('\n#### 200 OK\n');
    for (const [path, accept] of [
      ['/docs/api/reference', undefined],
      ['/docs/api/reference', 'text/markdown'],
      ['/docs/api/reference.md', undefined],
    ] as const) {
      const [get, head] = [await page(path, { accept }), await page(path, { method: 'HEAD', accept })];
      expect(head.status).toBe(200);
      for (const h of ['content-type', 'cache-control', 'vary']) expect(head.headers.get(h), `${path} ${h}`).toBe(get.headers.get(h));
      expect(head.text).toBe('');
    }
  });

  describe.skipIf(!CHROMIUM)('in headless Chromium', () => {
    const open = (...args: Parameters<Browser['open']>) => (browser as Browser).open(...args);

    const shoot = async (p: BrowserPage, name: string, clip?: { y: number; height: number; width: number }) => {
      if (!SHOTS) return;
      mkdirSync(SHOTS, { recursive: true });
      const width = await p.evaluate<number>('innerWidth');
      writeFileSync(join(SHOTS, name), await p.screenshot({ x: 0, y: clip?.y ?? 0, width: clip?.width ?? width, height: clip?.height ?? 2400 }));
    };
    /** The box of an operation's card, its folded answers opened (as a reader would). */
    const openCard = (p: BrowserPage, id: string) =>
      p.evaluate<{ y: number; height: number; width: number }>(`(() => {
        const card = document.getElementById(${JSON.stringify(id)});
        for (const d of card.querySelectorAll('details')) d.open = true;
        const r = card.getBoundingClientRect();
        return { y: r.y + scrollY, height: Math.min(r.height, 4000), width: innerWidth };
      })()`);
    const overflow = (p: BrowserPage) =>
      p.evaluate<{ scrollWidth: number; innerWidth: number; wide: string[] }>(`({
        scrollWidth: document.scrollingElement.scrollWidth,
        innerWidth,
        // Elements reaching past the viewport outside a box that scrolls them.
        wide: [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5 && !e.closest('pre')).slice(0, 5).map((e) => e.outerHTML.slice(0, 120)),
      })`);

    for (const [label, viewport, dark] of [
      ['phone', { width: 390, height: 844 }, false],
      ['phone-dark', { width: 390, height: 844 }, true],
      ['desktop', { width: 1280, height: 900 }, false],
      ['desktop-dark', { width: 1280, height: 900 }, true],
    ] as const) {
      it(`never scrolls sideways at ${viewport.width} px (${label}), its folded answers opened too; no script`, async () => {
        const p = await open(`${local.base}/docs/api/reference`, viewport, dark);
        await shoot(p, `reference-${label}.png`);
        expect(await p.evaluate('document.scripts.length')).toBe(0);
        const closed = await overflow(p);
        expect(closed.wide).toEqual([]);
        expect(closed.scrollWidth).toBeLessThanOrEqual(closed.innerWidth);
        await shoot(p, `reference-${label}-alerts.png`, await openCard(p, 'postApiV1MarketAlerts'));
        await p.evaluate(`document.querySelectorAll('details').forEach((d) => { d.open = true; })`);
        const opened = await overflow(p);
        expect(opened.wide).toEqual([]);
        expect(opened.scrollWidth).toBeLessThanOrEqual(opened.innerWidth);
        // Every code example fits its card: a long line scrolls inside its own box.
        const pres = await p.evaluate<Array<{ right: number; overflowX: string; scrolls: boolean }>>(
          `[...document.querySelectorAll('pre')].map((e) => ({ right: e.getBoundingClientRect().right, overflowX: getComputedStyle(e).overflowX, scrolls: e.scrollWidth > e.clientWidth }))`,
        );
        expect(pres.length).toBeGreaterThan(operations.length);
        for (const pre of pres) {
          expect(pre.right).toBeLessThanOrEqual(viewport.width);
          if (pre.scrolls) expect(pre.overflowX).toBe('auto');
        }
      });
    }

    it('has no serious or critical accessibility violation (axe-core) on a phone, light and dark, answers opened', async () => {
      for (const [viewport, dark] of [
        [{ width: 390, height: 844 }, false],
        [{ width: 390, height: 844 }, true],
      ] as const) {
        const p = await open(`${local.base}/docs/api/reference`, viewport, dark);
        await p.evaluate(`document.querySelectorAll('details').forEach((d) => { d.open = true; })`);
        await p.evaluate(AXE);
        const violations = await p.evaluate<Array<{ id: string; impact: string; nodes: number }>>(
          `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`,
        );
        expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      }
      // axe over some 10,000 elements: about 10 s a scheme alone, far more beside a full suite.
    }, 600_000);

    it('takes a reader from the table of contents to each operation by its anchor', async () => {
      const p = await open(`${local.base}/docs/api/reference`, { width: 390, height: 844 });
      for (const op of operations.filter((_, i) => i % 9 === 0)) {
        const at = await p.evaluate<{ top: number; bottom: boolean }>(`(() => {
          document.querySelector('.ref-toc a[href="#${op.id}"]').click();
          const top = Math.round(document.getElementById(${JSON.stringify(op.id)}).getBoundingClientRect().top);
          const s = document.scrollingElement;
          return { top, bottom: s.scrollTop + innerHeight >= s.scrollHeight - 1 };
        })()`);
        // At the top of the viewport, or as near as the end of the page lets it come.
        expect(Math.abs(at.top) <= 1 || (at.bottom && at.top > 0), `${op.id} at ${at.top}`).toBe(true);
      }
    });
  });
});

describe.runIf(!CHROMIUM && process.env.CI)('Chromium in CI', () => {
  it("is installed (.ci/run installs Debian's chromium): the reference's browser checks must not be skipped in CI", () => {
    expect.fail('no Chromium binary found although CI is set');
  });
});
