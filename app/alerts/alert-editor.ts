/**
 * The alert form (create or edit one alert of any kind): fields from app/alerts/alert-form.ts's AlertForm,
 * each problem shown under its own field (and named in the status line), the service's refusal as a sentence
 * (app/alerts/settings-messages.ts). The item comes from the item search or is typed as a key.
 */

import type { MarketAlert, MarketAlertInput } from '../../shared/domain/alerts';
import { MARKETS } from '../../shared/domain/market';
import { marketName } from '../../shared/domain/push-message';
import { h, say, status } from '../dom';
import { type ItemMatch, itemLabel, itemPicker, type SearchEntry } from '../items/item-search';
import { type AlertForm, type FormErrors, formToInput, KINDS, kindInfo } from './alert-form';
import { explainWrite } from './settings-messages';

export interface EditorOptions {
  form: AlertForm;
  index: readonly SearchEntry[];
  /** The alert being edited, or null for a new one. */
  editing: MarketAlert | null;
  save(input: MarketAlertInput): Promise<void>;
  cancel(): void;
}

const FIELD_IDS = { market: 'alert-market', item: 'alert-item', kind: 'alert-kind', value: 'alert-value', name: 'alert-name', note: 'alert-note' } as const;

function labelled(key: keyof typeof FIELD_IDS, label: string, control: HTMLElement, hint?: HTMLElement): HTMLElement {
  const error = h('p', { class: 'field-error', id: `${FIELD_IDS[key]}-error`, hidden: true });
  control.setAttribute('aria-describedby', [hint?.id, error.id].filter(Boolean).join(' '));
  return h('div', { class: 'field', 'data-field': key }, h('label', { for: FIELD_IDS[key] }, label), control, hint, error);
}

/** The form element. */
export function alertEditor(opts: EditorOptions): HTMLFormElement {
  const f = opts.form;
  const market = h('select', { id: FIELD_IDS.market }, ...MARKETS.map((m) => h('option', { value: m, selected: m === f.market }, marketName(m))));
  const item = h('input', { id: FIELD_IDS.item, inputmode: 'numeric', autocomplete: 'off', value: f.item });
  const itemName = h('p', { class: 'muted', 'aria-live': 'polite' }, f.item ? itemLabel(opts.index, Number(f.item)) : 'Whole market (deal alerts only)');
  item.addEventListener('input', () => {
    itemName.textContent = item.value.trim() ? itemLabel(opts.index, Number(item.value)) : 'Whole market (deal alerts only)';
  });
  const kind = h('select', { id: FIELD_IDS.kind }, ...KINDS.map((k) => h('option', { value: k.kind, selected: k.kind === f.kind }, k.label)));
  const value = h('input', { id: FIELD_IDS.value, autocomplete: 'off', value: f.value });
  const valueHint = h('p', { class: 'hint', id: `${FIELD_IDS.value}-hint` });
  const valueLabel = h('span', {});
  const drawKind = () => {
    const info = kindInfo(kind.value as AlertForm['kind']);
    valueLabel.textContent = info.unit === 'copper' ? 'Price (gold)' : info.unit === 'percent' ? 'Percent' : 'Quantity';
    value.inputMode = info.unit === 'copper' ? 'decimal' : 'numeric';
    valueHint.textContent = info.hint;
  };
  kind.addEventListener('change', drawKind);
  drawKind();
  const name = h('input', { id: FIELD_IDS.name, autocomplete: 'off', value: f.name });
  const note = h('input', { id: FIELD_IDS.note, autocomplete: 'off', value: f.note });
  const enabled = h('input', { id: 'alert-enabled', type: 'checkbox', checked: f.enabled });
  const line = status();
  const picker = itemPicker({
    index: opts.index,
    id: 'alert-item-search',
    label: 'Find an item',
    onPick: (m: ItemMatch) => {
      item.value = String(m.key);
      itemName.textContent = m.name ?? `Item ${m.key}`;
    },
  });
  const valueField = labelled('value', '', value, valueHint);
  valueField.querySelector('label')?.append(valueLabel);

  const showErrors = (errors: FormErrors) => {
    for (const key of Object.keys(FIELD_IDS) as (keyof typeof FIELD_IDS)[]) {
      const el = document.getElementById(`${FIELD_IDS[key]}-error`);
      const control = document.getElementById(FIELD_IDS[key]);
      if (!el || !control) continue;
      el.textContent = errors[key] ?? '';
      el.hidden = !errors[key];
      if (errors[key]) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
    }
  };

  const form = h(
    'form',
    { class: 'card stack alert-editor', 'aria-label': opts.editing ? 'Edit alert' : 'New alert', novalidate: true },
    h('h2', {}, opts.editing ? `Edit “${opts.editing.name ?? itemLabel(opts.index, opts.editing.item)}”` : 'New alert'),
    labelled('market', 'Market', market),
    picker,
    labelled('item', 'Item key', item, h('p', { class: 'hint', id: `${FIELD_IDS.item}-hint` }, 'Leave empty for a deal alert over the whole market.')),
    itemName,
    labelled('kind', 'Fires when', kind),
    valueField,
    labelled('name', 'Name (optional, shown in notifications)', name),
    labelled('note', 'Note (optional)', note),
    h('div', { class: 'field check' }, enabled, h('label', { for: enabled.id }, 'On (uncheck to keep the alert without it firing)')),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, opts.editing ? 'Save alert' : 'Create alert'),
      opts.editing && h('button', { type: 'button', onclick: () => opts.cancel() }, 'Cancel'),
    ),
    line,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const result = formToInput({
      market: market.value,
      item: item.value,
      kind: kind.value as AlertForm['kind'],
      value: value.value,
      name: name.value,
      note: note.value,
      enabled: enabled.checked,
    });
    if (!result.ok) {
      showErrors(result.errors);
      const count = Object.keys(result.errors).length;
      say(line, `Correct ${count === 1 ? 'the field marked below' : `the ${count} fields marked below`}, then try again.`, 'error');
      (form.querySelector('[aria-invalid="true"]') as HTMLElement | null)?.focus();
      return;
    }
    showErrors({});
    say(line, opts.editing ? 'Saving…' : 'Creating…');
    try {
      await opts.save(result.input);
    } catch (err) {
      say(line, explainWrite(err, 'alerts'), 'error');
    }
  });
  return form;
}
