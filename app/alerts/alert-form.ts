/**
 * The alert form ↔ the API's MarketAlertInput (spec api.md "Watchlist, alerts, boards"). Pure, so the mapping
 * is unit-tested apart from the DOM: people type prices in gold (`12.5` or `12g 50s`), percents and
 * quantities as whole numbers, and every rule the service would refuse (the kind's value range, the name and
 * note lengths, item 0 only for a whole-market deal) is told here first, as a sentence that says what to
 * type instead. The service stays the judge: its 400 is shown too.
 */
import { ALERT_KINDS, ALERT_NAME_MAX, ALERT_NOTE_MAX, type AlertKind, type MarketAlert, type MarketAlertInput, VALUE_RANGE } from '../../shared/domain/alerts';
import { isItemKey } from '../../shared/domain/item-key';
import { MARKETS } from '../../shared/domain/market';
import { formatCopper } from '../../shared/pages/money';

export type ValueUnit = 'copper' | 'percent' | 'quantity';

export interface KindInfo {
  kind: AlertKind;
  /** What the option says. */
  label: string;
  unit: ValueUnit;
  /** What the value means, for the field's hint. */
  hint: string;
}

/** Every kind the spec defines, in the order the form offers them. */
export const KINDS: readonly KindInfo[] = [
  { kind: 'below', label: 'Price at or below', unit: 'copper', hint: 'Fires when the lowest unit price is at or below this price.' },
  { kind: 'above', label: 'Price at or above', unit: 'copper', hint: 'Fires when the lowest unit price is at or above this price.' },
  { kind: 'rise', label: 'Price rises by', unit: 'percent', hint: "Fires when the price is this many percent above yesterday's close (1 to 1000)." },
  { kind: 'fall', label: 'Price falls by', unit: 'percent', hint: "Fires when the price is this many percent below yesterday's close (1 to 99)." },
  { kind: 'supplyBelow', label: 'Supply at or below', unit: 'quantity', hint: 'Fires when this many or fewer are listed (0: none left).' },
  { kind: 'supplyAbove', label: 'Supply at or above', unit: 'quantity', hint: 'Fires when this many or more are listed.' },
  {
    kind: 'deal',
    label: 'Deal (below its fair price)',
    unit: 'percent',
    hint: 'Fires when the price is this many percent below the median close of the last week (1 to 99). Leave the item empty for every item of the market.',
  },
];

if (KINDS.length !== ALERT_KINDS.length) throw new Error('alert-form: KINDS must list every kind of shared/domain/alerts');

export const kindInfo = (kind: AlertKind): KindInfo => KINDS.find((k) => k.kind === kind) as KindInfo;

/** The form as text fields, exactly what the inputs hold. */
export interface AlertForm {
  market: string;
  /** An item key, or empty for a whole-market deal. */
  item: string;
  kind: AlertKind;
  /** Gold for price kinds (`12.5`, `12g 50s 3c`), a whole number otherwise. */
  value: string;
  name: string;
  note: string;
  enabled: boolean;
}

export type FormErrors = Partial<Record<'market' | 'item' | 'kind' | 'value' | 'name' | 'note', string>>;
export type FormResult = { ok: true; input: MarketAlertInput } | { ok: false; errors: FormErrors };

const COPPER_PER_GOLD = 10_000;
const chars = (s: string): number => [...s].length;

/** `12.5` → 125000, `12g 50s 3c` → 125003, `75c` → 75; null for anything else. */
export function parseGold(text: string): number | null {
  const t = text.trim().toLowerCase().replace(/,/g, '');
  if (/^\d+(\.\d{1,4})?$/.test(t)) {
    const [whole, frac = ''] = t.split('.');
    return Number(whole) * COPPER_PER_GOLD + Number(frac.padEnd(4, '0'));
  }
  const m = /^(?:(\d+)\s*g)?\s*(?:(\d+)\s*s)?\s*(?:(\d+)\s*c)?$/.exec(t);
  if (!m || (!m[1] && !m[2] && !m[3])) return null;
  const silver = Number(m[2] ?? 0);
  const copper = Number(m[3] ?? 0);
  if (silver > 99 || copper > 99) return null;
  return Number(m[1] ?? 0) * COPPER_PER_GOLD + silver * 100 + copper;
}

/** Copper as the form shows it: `12g 50s 3c`. */
export const goldText = (copper: number): string => formatCopper(copper);

function valueError(kind: AlertKind, text: string): { value: number } | { error: string } {
  const { unit } = kindInfo(kind);
  const [lo, hi] = VALUE_RANGE[kind];
  if (text.trim() === '') return { error: unit === 'copper' ? 'Enter a price, for example 12.5 or 12g 50s.' : 'Enter a whole number.' };
  if (unit === 'copper') {
    const copper = parseGold(text);
    if (copper === null) return { error: 'Enter the price in gold, for example 12.5 or 12g 50s 3c.' };
    if (copper < lo || copper > hi) return { error: 'Enter a price of at least 1 copper.' };
    return { value: copper };
  }
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  const what = unit === 'percent' ? 'a whole percent' : 'a whole number of items';
  if (!Number.isSafeInteger(n) || n < lo || n > hi) return { error: `Enter ${what} from ${lo.toLocaleString('en-US')} to ${hi.toLocaleString('en-US')}.` };
  return { value: n };
}

/** The form → the body of POST/PUT /api/v1/market/alerts, or what to correct, field by field. */
export function formToInput(form: AlertForm): FormResult {
  const errors: FormErrors = {};
  if (!MARKETS.includes(form.market)) errors.market = 'Choose one of the six markets.';
  if (!(ALERT_KINDS as readonly string[]).includes(form.kind)) errors.kind = 'Choose what the alert watches.';
  let item = 0;
  const itemText = form.item.trim();
  if (itemText === '') {
    if (form.kind !== 'deal') errors.item = 'Choose an item: only a deal alert can watch the whole market.';
  } else {
    item = /^\d+$/.test(itemText) ? Number(itemText) : Number.NaN;
    if (!isItemKey(item)) errors.item = 'Choose an item from the search, or type its item key (a whole number).';
  }
  const value = errors.kind ? null : valueError(form.kind, form.value);
  if (value && 'error' in value) errors.value = value.error;
  const name = form.name.trim();
  const note = form.note.trim();
  if (chars(name) > ALERT_NAME_MAX) errors.name = `Shorten the name to ${ALERT_NAME_MAX} characters (it has ${chars(name)}).`;
  if (chars(note) > ALERT_NOTE_MAX) errors.note = `Shorten the note to ${ALERT_NOTE_MAX} characters (it has ${chars(note)}).`;
  if (Object.keys(errors).length > 0 || !value || 'error' in value) return { ok: false, errors };
  const input: MarketAlertInput = { market: form.market, item, kind: form.kind, value: value.value, enabled: form.enabled };
  if (name) input.name = name;
  if (note) input.note = note;
  return { ok: true, input };
}

/** A stored alert → the form that edits it (the inverse of formToInput for what it accepts). */
export function alertToForm(alert: MarketAlertInput): AlertForm {
  const { unit } = kindInfo(alert.kind);
  return {
    market: alert.market,
    item: alert.item === 0 ? '' : String(alert.item),
    kind: alert.kind,
    value: unit === 'copper' ? goldText(alert.value) : String(alert.value),
    name: alert.name ?? '',
    note: alert.note ?? '',
    enabled: alert.enabled,
  };
}

/** An empty form for a new alert (the item already chosen when one is given). */
export const blankForm = (market: string, item?: number): AlertForm => ({
  market,
  item: item ? String(item) : '',
  kind: 'below',
  value: '',
  name: '',
  note: '',
  enabled: true,
});

/** The alert's condition as a phrase: `price at or below 12g 50s 0c`. */
export function conditionText(a: Pick<MarketAlertInput, 'kind' | 'value'>): string {
  const { label, unit } = kindInfo(a.kind);
  const v = unit === 'copper' ? goldText(a.value) : unit === 'percent' ? `${a.value}%` : a.value.toLocaleString('en-US');
  if (a.kind === 'deal') return `price ${v} below its fair price`;
  return `${label.toLowerCase()} ${v}`;
}

/** The alert's state for people (spec Alert states): disabled, waiting to fire, or fired and waiting to re-arm. */
export function stateText(a: Pick<MarketAlert, 'enabled' | 'armed' | 'last' | 'item'>, when: (ms: number) => string): string {
  const last = a.last ? `last fired ${when(a.last.at)}` : 'never fired';
  if (!a.enabled) return `Off (${last}).`;
  if (a.item === 0) return `On: fires for items that newly become deals (${last}).`;
  return a.armed ? `Armed: fires when the condition holds (${last}).` : `Fired: re-arms when the condition stops holding (${last}).`;
}
