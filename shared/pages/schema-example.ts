/**
 * Examples for the API reference (issue 24 point 8): the document's own example when it has one, otherwise a
 * value generated from the JSON Schema (2020-12, OpenAPI 3.1's dialect) that the schema accepts. Deterministic:
 * the same schema always gives the same value, so the page and its tests never drift. Pure.
 */

export type JsonSchema = Record<string, unknown> | boolean;
/** Follows a `$ref` inside the document (null when it points nowhere). */
export type RefResolver = (ref: string) => JsonSchema | null;

/** A JSON Pointer (`#/components/schemas/Book`) inside `root`. */
export function pointerResolver(root: unknown): RefResolver {
  return (ref) => {
    if (!ref.startsWith('#')) return null;
    let at: unknown = root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (at === null || typeof at !== 'object' || !(key in at)) return null;
      at = (at as Record<string, unknown>)[key];
    }
    return typeof at === 'object' || typeof at === 'boolean' ? (at as JsonSchema) : null;
  };
}

/** A schema's own example: `example` (OpenAPI) or the first of `examples` (JSON Schema). */
export function ownExample(s: Record<string, unknown>): { value: unknown } | null {
  if ('example' in s) return { value: s.example };
  if (Array.isArray(s.examples) && s.examples.length > 0) return { value: s.examples[0] };
  return null;
}

/** A fixed instant for values described as Unix ms: 2026-01-01T00:00:00Z. */
export const EXAMPLE_MS = Date.UTC(2026, 0, 1);
const MAX_DEPTH = 16;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The example of a schema, or null for one that accepts anything (`{}`, `true`). */
export function exampleOf(schema: JsonSchema | undefined, resolve: RefResolver, depth = 0): unknown {
  if (!isObject(schema) || depth > MAX_DEPTH) return null;
  if (typeof schema.$ref === 'string') return exampleOf(resolve(schema.$ref) ?? undefined, resolve, depth + 1);
  const own = ownExample(schema);
  if (own) return own.value;
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const variants = schema[key];
    if (Array.isArray(variants) && variants.length > 0) {
      const chosen = variants.find((v) => !(isObject(v) && v.type === 'null')) ?? variants[0];
      return exampleOf(chosen as JsonSchema, resolve, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((p) => exampleOf(p as JsonSchema, resolve, depth + 1));
    return parts.every(isObject) ? Object.assign({}, ...parts) : (parts[0] ?? null);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== 'null') ?? types[0] ?? impliedType(schema);
  switch (type) {
    case 'object':
      return objectExample(schema, resolve, depth);
    case 'array':
      return arrayExample(schema, resolve, depth);
    case 'string':
      return stringExample(schema);
    case 'integer':
    case 'number':
      return numberExample(schema, type === 'integer');
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return null;
  }
}

/** The type a schema without `type` implies by its keywords (`propertyNames` often has only a pattern). */
const impliedType = (s: Record<string, unknown>): string | undefined =>
  s.properties || s.additionalProperties
    ? 'object'
    : s.items || s.prefixItems
      ? 'array'
      : s.pattern || s.format || s.minLength !== undefined
        ? 'string'
        : s.minimum !== undefined || s.maximum !== undefined
          ? 'number'
          : undefined;

function objectExample(schema: Record<string, unknown>, resolve: RefResolver, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(isObject(schema.properties) ? schema.properties : {}))
    out[name] = exampleOf(prop as JsonSchema, resolve, depth + 1);
  if (isObject(schema.additionalProperties) && Object.keys(out).length === 0) {
    const names = isObject(schema.propertyNames) ? schema.propertyNames : {};
    const key = exampleOf(names, resolve, depth + 1);
    out[typeof key === 'string' ? key : 'key'] = exampleOf(schema.additionalProperties, resolve, depth + 1);
  }
  return out;
}

function arrayExample(schema: Record<string, unknown>, resolve: RefResolver, depth: number): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems.map((p) => exampleOf(p as JsonSchema, resolve, depth + 1)) : [];
  if (schema.items === false || (prefix.length > 0 && schema.items === undefined)) return prefix;
  const max = num(schema.maxItems) ?? Number.POSITIVE_INFINITY;
  // One item shows the shape; more only where the schema asks for them.
  const count = Math.min(max, Math.max(1, Math.min(10, num(schema.minItems) ?? 0))) - prefix.length;
  const item = exampleOf(schema.items as JsonSchema, resolve, depth + 1);
  return [...prefix, ...Array.from({ length: Math.max(0, count) }, () => item)];
}

const FORMATS: Record<string, string> = {
  'date-time': new Date(EXAMPLE_MS).toISOString(),
  date: new Date(EXAMPLE_MS).toISOString().slice(0, 10),
  time: '00:00:00Z',
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

function stringExample(schema: Record<string, unknown>): string {
  if (typeof schema.format === 'string' && FORMATS[schema.format]) return FORMATS[schema.format];
  if (typeof schema.pattern === 'string') {
    const sample = patternSample(schema.pattern);
    if (sample !== null) return sample;
  }
  const min = num(schema.minLength) ?? 0;
  const max = num(schema.maxLength) ?? Number.POSITIVE_INFINITY;
  return 'string'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(max, 6)));
}

function numberExample(schema: Record<string, unknown>, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  const low = num(schema.minimum) ?? (num(schema.exclusiveMinimum) !== undefined ? (num(schema.exclusiveMinimum) as number) + step : undefined);
  const high = num(schema.maximum) ?? (num(schema.exclusiveMaximum) !== undefined ? (num(schema.exclusiveMaximum) as number) - step : undefined);
  const wanted = typeof schema.description === 'string' && /unix ms/i.test(schema.description) ? EXAMPLE_MS : 0;
  return Math.min(high ?? Number.POSITIVE_INFINITY, Math.max(low ?? Number.NEGATIVE_INFINITY, wanted));
}

/**
 * A string the regular expression matches, for the subset schemas use (anchors, literals, escapes, classes,
 * groups with alternatives, quantifiers): the first alternative, the first character of a class, each
 * quantified part once (its minimum when that is more). Null for anything outside the subset.
 */
export function patternSample(pattern: string): string | null {
  const p = new PatternSampler(pattern);
  const out = p.sequence();
  return p.done() && out !== null && new RegExp(pattern, 'u').test(out) ? out : null;
}

const ESCAPE_SAMPLE: Record<string, string> = { d: '0', w: 'a', s: ' ', n: '\n', t: '\t' };

class PatternSampler {
  private at = 0;
  constructor(private readonly src: string) {}

  done(): boolean {
    return this.at >= this.src.length;
  }

  /** Alternatives up to `)` or the end; the first one is the sample. */
  sequence(): string | null {
    let first: string | null = null;
    let current = '';
    let branch = 0;
    while (!this.done() && this.src[this.at] !== ')') {
      if (this.src[this.at] === '|') {
        if (branch++ === 0) first = current;
        current = '';
        this.at++;
        continue;
      }
      const atom = this.atom();
      if (atom === null) return null;
      const times = this.quantifier();
      if (times === null) return null;
      current += atom.repeat(times);
    }
    return branch === 0 ? current : first;
  }

  private atom(): string | null {
    const c = this.src[this.at++];
    if (c === '^' || c === '$') return '';
    if (c === '(') {
      if (this.src.startsWith('?:', this.at)) this.at += 2;
      else if (this.src[this.at] === '?') return null;
      const inner = this.sequence();
      if (this.src[this.at++] !== ')') return null;
      return inner;
    }
    if (c === '[') return this.charClass();
    if (c === '\\') {
      const e = this.src[this.at++];
      return e === undefined ? null : (ESCAPE_SAMPLE[e] ?? (/[A-Za-z0-9]/.test(e) ? null : e));
    }
    if (c === '.') return 'a';
    if ('*+?{}|)'.includes(c)) return null;
    return c;
  }

  private charClass(): string | null {
    if (this.src[this.at] === '^') return this.negatedClass();
    let first: string | null = null;
    while (!this.done() && this.src[this.at] !== ']') {
      let c = this.src[this.at++];
      if (c === '\\') {
        const e = this.src[this.at++];
        c = ESCAPE_SAMPLE[e] ?? e;
      }
      first ??= c;
    }
    return this.src[this.at++] === ']' ? first : null;
  }

  /** A negated class (`[^…]`, e.g. a name's refused characters): the first plain character it lets through. */
  private negatedClass(): string | null {
    const start = this.at - 1;
    while (!this.done() && this.src[this.at] !== ']') this.at += this.src[this.at] === '\\' ? 2 : 1;
    if (this.src[this.at++] !== ']') return null;
    const cls = new RegExp(this.src.slice(start, this.at), 'u');
    return ['a', 'A', '0', '_', '-', '.'].find((c) => cls.test(c)) ?? null;
  }

  /** How many times the atom is written: once, or the quantifier's minimum when that is more. */
  private quantifier(): number | null {
    const c = this.src[this.at];
    if (c === '?' || c === '*' || c === '+') {
      this.at++;
      if (this.src[this.at] === '?') this.at++;
      return 1;
    }
    if (c !== '{') return 1;
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at));
    if (!m) return null;
    this.at += m[0].length;
    const min = Number(m[1]);
    const max = m[3] ? Number(m[3]) : m[2] ? Number.POSITIVE_INFINITY : min;
    return Math.min(max, Math.max(min, 1));
  }
}

/**
 * JSON indented by two spaces, except arrays of plain values (tuples such as candles), which stay on one line
 * when short: an example reads like the answers do. `JSON.parse` gives back the same value.
 */
export function prettyJson(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const flat = value.every((v) => v === null || typeof v !== 'object');
    const inline = `[${value.map((v) => JSON.stringify(v) ?? 'null').join(', ')}]`;
    if (flat && inline.length <= 72) return inline;
    const inner = `${indent}  `;
    return `[\n${value.map((v) => inner + prettyJson(v, inner)).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${prettyJson(v, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
