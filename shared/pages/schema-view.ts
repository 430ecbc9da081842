/**
 * A JSON Schema as rows a person reads (issue 24 point 8): each property with its type, whether it is
 * required, its description and constraints, nested properties below it. One model, rendered as nested HTML
 * lists (they wrap on a phone, where a table would not) and as nested Markdown lists. Pure.
 */
import { escapeHtml } from './render';
import type { JsonSchema, RefResolver } from './schema-example';

export interface SchemaRow {
  /** Property name, `[0]` for a tuple place, `<key>` for the values of a map; empty for the root. */
  name: string;
  type: string;
  required: boolean;
  description?: string;
  /** Constraints and defaults, each a short phrase (`≥ 1`, `default "d1"`), code in backticks. */
  notes: string[];
  children: SchemaRow[];
}

const MAX_DEPTH = 12;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const json = (v: unknown): string => JSON.stringify(v) ?? 'undefined';
/** JavaScript's safe-integer bound says nothing a reader needs. */
const bound = (v: unknown): number | undefined => (typeof v === 'number' && Math.abs(v) < Number.MAX_SAFE_INTEGER ? v : undefined);

/** The rows of a schema: its root row (name empty) whose children are its properties. */
export function schemaRows(schema: JsonSchema | undefined, resolve: RefResolver, name = '', required = false, depth = 0): SchemaRow {
  const row: SchemaRow = { name, type: 'any', required, notes: [], children: [] };
  if (!isObject(schema) || depth > MAX_DEPTH) return row;
  let s = schema;
  let refName: string | undefined;
  for (let hops = 0; typeof s.$ref === 'string' && hops < 8; hops++) {
    refName = s.$ref.split('/').pop();
    const target = resolve(s.$ref);
    // Siblings of `$ref` (a description, OpenAPI 3.1 allows it) override the target's.
    s = { ...(isObject(target) ? target : {}), ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) };
  }
  if (typeof s.description === 'string') row.description = s.description;
  const variants = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : []) as JsonSchema[];
  const nonNull = variants.filter((v) => !(isObject(v) && v.type === 'null'));
  if (variants.length > 0 && nonNull.length === 1) {
    const inner = schemaRows(nonNull[0], resolve, name, required, depth + 1);
    return { ...inner, type: `${inner.type} or null`, description: row.description ?? inner.description, notes: [...inner.notes, ...notesOf(s)] };
  }
  if (variants.length > 0) {
    row.type = variants.length > nonNull.length ? 'one of (or null)' : 'one of';
    row.children = nonNull.map((v, i) => schemaRows(v, resolve, `option ${i + 1}`, false, depth + 1));
  } else if (Array.isArray(s.allOf)) {
    row.type = 'all of';
    row.children = (s.allOf as JsonSchema[]).map((v, i) => schemaRows(v, resolve, `part ${i + 1}`, false, depth + 1));
  } else {
    describeTyped(s, row, resolve, depth);
  }
  if (refName && row.type === 'object') row.type = refName;
  row.notes.push(...notesOf(s));
  return row;
}

function describeTyped(s: Record<string, unknown>, row: SchemaRow, resolve: RefResolver, depth: number): void {
  if ('const' in s) {
    row.type = json(s.const);
    return;
  }
  const types = (Array.isArray(s.type) ? s.type : s.type !== undefined ? [s.type] : []) as string[];
  const main = types.filter((t) => t !== 'null');
  const orNull = types.includes('null') && main.length > 0 ? ' or null' : '';
  const type = main[0] ?? (s.properties || s.additionalProperties ? 'object' : s.items || s.prefixItems ? 'array' : undefined);
  if (type === 'object') {
    row.type = `object${orNull}`;
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    for (const [n, p] of Object.entries(isObject(s.properties) ? s.properties : {}))
      row.children.push(schemaRows(p as JsonSchema, resolve, n, required.has(n), depth + 1));
    if (isObject(s.additionalProperties)) {
      const key = schemaRows(s.additionalProperties, resolve, '<key>', false, depth + 1);
      const names = isObject(s.propertyNames) ? s.propertyNames : {};
      if (typeof names.pattern === 'string') key.notes.unshift(`keys match ${code(names.pattern)}`);
      row.children.push(key);
      if (row.children.length === 1) row.type = `map of ${key.type}${orNull}`;
    }
    return;
  }
  if (type === 'array') {
    const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as JsonSchema[]) : [];
    if (prefix.length > 0) {
      row.type = `tuple${orNull}`;
      row.children = prefix.map((p, i) => schemaRows(p, resolve, `[${i}]`, true, depth + 1));
      if (isObject(s.items)) row.children.push(schemaRows(s.items, resolve, `[${prefix.length}…]`, false, depth + 1));
      return;
    }
    const item = schemaRows(s.items as JsonSchema, resolve, '', false, depth + 1);
    row.type = `array of ${item.type}${orNull}`;
    // The items' own description and constraints stay with them: they say what one item is.
    if (item.children.length > 0 || item.description || item.notes.length > 0) {
      if (item.children.length > 0 && !item.description && item.notes.length === 0) row.children = item.children;
      else row.children = [{ ...item, name: '[item]' }];
    }
    return;
  }
  row.type = `${type ?? 'any'}${orNull}`;
}

/** Code in a note: backticks, which both renderers show as code. */
const code = (s: string): string => `\`${s.replace(/`/g, "'")}\``;

/** Constraints, formats and defaults as short phrases (values and patterns in backticks). */
function notesOf(s: Record<string, unknown>): string[] {
  const notes: string[] = [];
  if (Array.isArray(s.enum)) notes.push(s.enum.length === 1 ? `always ${code(json(s.enum[0]))}` : `one of ${s.enum.map((v) => code(json(v))).join(', ')}`);
  const [min, max] = [bound(s.minimum), bound(s.maximum)];
  if (min !== undefined && max !== undefined) notes.push(`${min} to ${max}`);
  else if (min !== undefined) notes.push(`≥ ${min}`);
  else if (max !== undefined) notes.push(`≤ ${max}`);
  if (bound(s.exclusiveMinimum) !== undefined) notes.push(`> ${s.exclusiveMinimum}`);
  if (bound(s.exclusiveMaximum) !== undefined) notes.push(`< ${s.exclusiveMaximum}`);
  const [minL, maxL] = [bound(s.minLength), bound(s.maxLength)];
  if (minL !== undefined || maxL !== undefined) notes.push(range(minL, maxL, 'characters'));
  const [minI, maxI] = [bound(s.minItems), bound(s.maxItems)];
  if ((minI !== undefined || maxI !== undefined) && !(Array.isArray(s.prefixItems) && s.items === false)) notes.push(range(minI, maxI, 'items'));
  if (s.uniqueItems === true) notes.push('unique items');
  if (typeof s.pattern === 'string') notes.push(`pattern ${code(s.pattern)}`);
  if (typeof s.format === 'string') notes.push(`format ${s.format}`);
  if (typeof s.contentMediaType === 'string') notes.push(s.contentMediaType);
  if (bound(s.multipleOf) !== undefined) notes.push(`multiple of ${s.multipleOf}`);
  if ('default' in s) notes.push(`default ${code(json(s.default))}`);
  if (s.deprecated === true) notes.push('deprecated');
  return notes;
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min} ${unit}` : `${min} to ${max} ${unit}`;
  return min !== undefined ? `at least ${min} ${unit}` : `at most ${max} ${unit}`;
}

/** Inline code in descriptions (`like this`) as `<code>`, everything else escaped. */
export const proseHtml = (s: string): string => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/*
 * Terse markup, styled inside `.ref-schema` (reference-style.ts): the page has thousands of rows. A row is the name
 * (`code`), the type (`i`), `required` (`b`), the description (`span`) and the constraints (`small`).
 */
const notesHtml = (notes: string[]): string => (notes.length ? ` <small>${notes.map(proseHtml).join('; ')}</small>` : '');
const descHtml = (d: string | undefined): string => (d ? ` <span>${proseHtml(d)}</span>` : '');

function rowHtml(r: SchemaRow): string {
  const head = [r.name ? `<code>${escapeHtml(r.name)}</code>` : '', `<i>${escapeHtml(r.type)}</i>`, r.required ? '<b>required</b>' : '']
    .filter(Boolean)
    .join(' ');
  return `<li>${head}${descHtml(r.description)}${notesHtml(r.notes)}${childrenHtml(r.children)}</li>`;
}

const childrenHtml = (rows: SchemaRow[]): string => (rows.length ? `<ul>${rows.map(rowHtml).join('')}</ul>` : '');

/** A schema as HTML: its type line, then its properties as nested lists. */
export function schemaHtml(root: SchemaRow): string {
  return `<div class="ref-schema"><p><i>${escapeHtml(root.type)}</i>${descHtml(root.description)}${notesHtml(root.notes)}</p>${childrenHtml(root.children)}</div>`;
}

/** Markdown text on one line (descriptions may hold paragraphs). */
export const oneLine = (s: string): string => s.replace(/\s*\n+\s*/g, ' ').trim();

function rowMarkdown(r: SchemaRow, indent: string): string[] {
  const what = [r.type, r.required ? 'required' : ''].filter(Boolean).join(', ');
  const name = r.name ? `\`${r.name}\` ` : '';
  const notes = r.notes.join('; ');
  const tail = r.description ? `${oneLine(r.description)}${notes ? ` (${notes})` : ''}` : notes;
  return [`${indent}- ${name}(${what})${tail ? `: ${tail}` : ''}`, ...r.children.flatMap((c) => rowMarkdown(c, `${indent}  `))];
}

/** A schema as a nested Markdown list (the root's type line first). */
export function schemaMarkdown(root: SchemaRow): string[] {
  return rowMarkdown(root, '');
}
