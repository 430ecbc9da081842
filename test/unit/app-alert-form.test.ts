/**
 * The alert form ↔ MarketAlertInput mapping (issue 24 point 5): every kind the spec defines, its value's
 * range and unit, the whole-market deal (item 0), name and note lengths, and the form an alert is edited in.
 * Each body the form makes is checked against the route's own schema (shared/api/settings.schemas.ts).
 */
import { describe, expect, it } from 'vitest';
import { type AlertForm, alertToForm, blankForm, conditionText, formToInput, KINDS, parseGold, stateText } from '../../app/alerts/alert-form';
import { AlertInput } from '../../shared/api/settings.schemas';
import { ALERT_KINDS } from '../../shared/domain/alerts';

const MARKET = 'forever.normal.alliance.us';
const form = (over: Partial<AlertForm>): AlertForm => ({ ...blankForm(MARKET), item: '2589', ...over });

describe('alert form → API body', () => {
  it('offers every kind the spec defines', () => {
    expect(KINDS.map((k) => k.kind).sort()).toEqual([...ALERT_KINDS].sort());
  });

  it('reads prices in gold, or as gold, silver and copper', () => {
    expect(parseGold('12.5')).toBe(125_000);
    expect(parseGold('12g 50s 3c')).toBe(125_003);
    expect(parseGold('75c')).toBe(75);
    expect(parseGold('1,234')).toBe(12_340_000);
    expect(parseGold('0.0001')).toBe(1);
    expect(parseGold('12.34567')).toBeNull();
    expect(parseGold('5s 120c')).toBeNull();
    expect(parseGold('cheap')).toBeNull();
    expect(parseGold('')).toBeNull();
  });

  it.each([
    ['below', '12.5', 125_000],
    ['above', '3g', 30_000],
    ['rise', '1000', 1000],
    ['fall', '99', 99],
    ['supplyBelow', '0', 0],
    ['supplyAbove', '1', 1],
    ['deal', '30', 30],
  ] as const)('makes a %s alert the service accepts', (kind, value, expected) => {
    const r = formToInput(form({ kind, value, name: ' Linen ', note: '' }));
    expect(r).toEqual({ ok: true, input: { market: MARKET, item: 2589, kind, value: expected, enabled: true, name: 'Linen' } });
    if (r.ok) expect(AlertInput.safeParse(r.input).success).toBe(true);
  });

  it.each([
    ['rise', '0', 'from 1 to 1,000'],
    ['rise', '1001', 'from 1 to 1,000'],
    ['fall', '100', 'from 1 to 99'],
    ['deal', '0', 'from 1 to 99'],
    ['supplyAbove', '0', 'from 1 to 2,147,483,647'],
    ['supplyBelow', '2147483648', 'from 0 to 2,147,483,647'],
    ['fall', '12.5', 'whole percent'],
    ['below', '0', 'at least 1 copper'],
    ['below', 'a lot', 'price in gold'],
  ] as const)('refuses a %s value of %s with what to type instead', (kind, value, says) => {
    const r = formToInput(form({ kind, value }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.value).toContain(says);
    // The service refuses the same value: the form is not stricter or looser than the route.
    const unit = KINDS.find((k) => k.kind === kind)?.unit;
    if (unit !== 'copper' && /^\d+$/.test(value)) expect(AlertInput.safeParse({ market: MARKET, item: 2589, kind, value: Number(value) }).success).toBe(false);
  });

  it('lets only a deal alert watch the whole market (item 0)', () => {
    const deal = formToInput(form({ kind: 'deal', item: '', value: '25' }));
    expect(deal).toEqual({ ok: true, input: { market: MARKET, item: 0, kind: 'deal', value: 25, enabled: true } });
    const below = formToInput(form({ kind: 'below', item: '', value: '1' }));
    expect(below.ok).toBe(false);
    if (!below.ok) expect(below.errors.item).toMatch(/only a deal alert/);
  });

  it('refuses a key that is no item key, a market that is none of the six, long names and notes', () => {
    const r = formToInput(form({ item: '2147483648', market: 'forever.normal.neutral.us', value: '1', name: 'n'.repeat(81), note: 'é'.repeat(201) }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(['item', 'market', 'name', 'note']);
    expect(r.errors.name).toBe('Shorten the name to 80 characters (it has 81).');
    expect(r.errors.note).toBe('Shorten the note to 200 characters (it has 201).');
    // 80 characters (not bytes) pass: emoji count as one character each, as the service counts them.
    expect(formToInput(form({ value: '1', name: '🐉'.repeat(80) })).ok).toBe(true);
  });

  it('keeps an alert switched off', () => {
    const r = formToInput(form({ value: '1', enabled: false }));
    expect(r.ok && r.input.enabled).toBe(false);
  });
});

describe('API alert → form', () => {
  it.each([
    { market: MARKET, item: 2589, kind: 'below', value: 125_003, enabled: true, name: 'Linen', note: 'for bandages' },
    { market: 'forever.pvp.horde.us', item: 0, kind: 'deal', value: 40, enabled: false },
    { market: MARKET, item: 4_294_969_885, kind: 'supplyBelow', value: 0, enabled: true },
    { market: MARKET, item: 2589, kind: 'rise', value: 250, enabled: true },
  ] as const)('edits $kind in a form that gives back the same body', (alert) => {
    const f = alertToForm(alert);
    expect(formToInput(f)).toEqual({ ok: true, input: alert });
  });

  it('shows prices as gold, silver and copper, percents and quantities as numbers', () => {
    expect(alertToForm({ market: MARKET, item: 1, kind: 'above', value: 125_003, enabled: true }).value).toBe('12g 50s 3c');
    expect(conditionText({ kind: 'below', value: 125_000 })).toBe('price at or below 12g 50s 0c');
    expect(conditionText({ kind: 'fall', value: 20 })).toBe('price falls by 20%');
    expect(conditionText({ kind: 'supplyAbove', value: 1500 })).toBe('supply at or above 1,500');
    expect(conditionText({ kind: 'deal', value: 30 })).toBe('price 30% below its fair price');
  });

  it('tells the armed and last state as the spec defines it', () => {
    const at = (ms: number) => `at ${ms}`;
    expect(stateText({ enabled: true, armed: true, last: null, item: 5 }, at)).toBe('Armed: fires when the condition holds (never fired).');
    expect(stateText({ enabled: true, armed: false, last: { at: 7, hits: [] }, item: 5 }, at)).toBe(
      'Fired: re-arms when the condition stops holding (last fired at 7).',
    );
    expect(stateText({ enabled: false, armed: true, last: null, item: 5 }, at)).toBe('Off (never fired).');
    expect(stateText({ enabled: true, armed: true, last: { at: 9, hits: [] }, item: 0 }, at)).toContain('newly become deals (last fired at 9)');
  });
});
