/**
 * A small JSON Schema 2020-12 checker for the subset the OpenAPI documents use (issue 24 point 10): the test
 * clients hold every answer to the documents with it. No npm validator is declared by the project (the `ajv`
 * in node_modules is Redocly's private fork), and a checker that knows its subset can refuse what it does not
 * know: an unknown keyword throws, so a constraint the documents add is never silently skipped.
 */

type Schema = boolean | Record<string, unknown>;
/** A schema object read keyword by keyword. */
// biome-ignore lint/suspicious/noExplicitAny: keywords are read by name, their types checked where used
type Keywords = Record<string, any>;

/** Keywords that only annotate (they never make an instance invalid). */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'examples',
  'contentMediaType',
  'contentEncoding',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
  '$id',
  '$defs',
  'format',
  'id',
]);

const CHECKED = new Set([
  '$ref',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'const',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minProperties',
  'maxProperties',
]);

/** A problem: where in the instance (a JSON pointer) and what is wrong. */
export interface SchemaProblem {
  at: string;
  problem: string;
}

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function hasType(v: unknown, t: string): boolean {
  switch (t) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeOf(v) === 'object';
    case 'null':
      return v === null;
    default:
      return typeof v === t;
  }
}

/** Deep equality of JSON values (for `const`, `enum`, `uniqueItems`). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeOf(a) !== typeOf(b) || typeof a !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => same(x, (b as unknown[])[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && same((a as never)[k], (b as never)[k]));
}

/** The number of code points (JSON Schema counts characters, not UTF-16 units). */
const length = (s: string): number => [...s].length;

/**
 * A checker over a root document (an OpenAPI document, for its `#/components/schemas/…` references).
 * `check` answers every problem found; an empty list means valid.
 */
export class SchemaChecker {
  private readonly patterns = new Map<string, RegExp>();

  constructor(private readonly root: unknown) {}

  check(schema: Schema, value: unknown, at = ''): SchemaProblem[] {
    const out: SchemaProblem[] = [];
    this.visit(schema, value, at, out);
    return out;
  }

  private resolve(ref: string): Schema {
    if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
    let node: unknown = this.root;
    for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown>)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
    return node as Schema;
  }

  private regex(pattern: string): RegExp {
    let r = this.patterns.get(pattern);
    if (!r) {
      r = new RegExp(pattern, 'u');
      this.patterns.set(pattern, r);
    }
    return r;
  }

  private valid(schema: Schema, value: unknown, at: string): boolean {
    return this.check(schema, value, at).length === 0;
  }

  private visit(schema: Schema, v: unknown, at: string, out: SchemaProblem[]): void {
    if (schema === true) return;
    if (schema === false) {
      out.push({ at, problem: 'no value is allowed here' });
      return;
    }
    const fail = (problem: string) => out.push({ at, problem });
    for (const key of Object.keys(schema))
      if (!CHECKED.has(key) && !ANNOTATIONS.has(key)) throw new Error(`the checker does not know the keyword ${key} (at ${at || '/'})`);
    const s = schema as Keywords;
    if (s.$ref !== undefined) this.visit(this.resolve(s.$ref), v, at, out);
    if (s.type !== undefined) {
      const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
      if (!types.some((t) => hasType(v, t))) {
        fail(`is ${typeOf(v)}, not ${types.join(' or ')}`);
        return;
      }
    }
    if (s.const !== undefined && !same(v, s.const)) fail(`is not ${JSON.stringify(s.const)}`);
    if (s.enum !== undefined && !(s.enum as unknown[]).some((e) => same(v, e))) fail(`${JSON.stringify(v)} is not one of ${JSON.stringify(s.enum)}`);
    if (s.allOf) for (const sub of s.allOf) this.visit(sub, v, at, out);
    if (s.anyOf && !s.anyOf.some((sub: Schema) => this.valid(sub, v, at))) fail(`matches none of anyOf: ${this.firstProblems(s.anyOf, v, at)}`);
    if (s.oneOf) {
      const n = s.oneOf.filter((sub: Schema) => this.valid(sub, v, at)).length;
      if (n !== 1) fail(n === 0 ? `matches none of oneOf: ${this.firstProblems(s.oneOf, v, at)}` : `matches ${n} of oneOf`);
    }
    if (s.not !== undefined && this.valid(s.not, v, at)) fail(`matches a schema it must not (${JSON.stringify(s.not)})`);
    if (typeof v === 'number') this.number(s, v, fail);
    if (typeof v === 'string') {
      if (s.minLength !== undefined && length(v) < s.minLength) fail(`is shorter than ${s.minLength}`);
      if (s.maxLength !== undefined && length(v) > s.maxLength) fail(`is longer than ${s.maxLength}`);
      if (s.pattern !== undefined && !this.regex(s.pattern).test(v)) fail(`${JSON.stringify(v.slice(0, 80))} does not match ${s.pattern}`);
    }
    if (Array.isArray(v)) this.array(s, v, at, out, fail);
    else if (typeOf(v) === 'object') this.object(s, v as Record<string, unknown>, at, out, fail);
  }

  private number(s: Keywords, v: number, fail: (p: string) => void): void {
    if (s.minimum !== undefined && v < s.minimum) fail(`${v} is below ${s.minimum}`);
    if (s.maximum !== undefined && v > s.maximum) fail(`${v} is above ${s.maximum}`);
    if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) fail(`${v} is not above ${s.exclusiveMinimum}`);
    if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) fail(`${v} is not below ${s.exclusiveMaximum}`);
    if (s.multipleOf !== undefined && v % s.multipleOf !== 0) fail(`${v} is not a multiple of ${s.multipleOf}`);
  }

  private array(s: Keywords, v: unknown[], at: string, out: SchemaProblem[], fail: (p: string) => void): void {
    if (s.minItems !== undefined && v.length < s.minItems) fail(`has ${v.length} items, fewer than ${s.minItems}`);
    if (s.maxItems !== undefined && v.length > s.maxItems) fail(`has ${v.length} items, more than ${s.maxItems}`);
    const prefix: Schema[] = s.prefixItems ?? [];
    v.forEach((x, i) => {
      const sub = i < prefix.length ? prefix[i] : s.items;
      if (sub !== undefined) this.visit(sub, x, `${at}/${i}`, out);
    });
    if (s.uniqueItems === true && v.some((x, i) => v.findIndex((y) => same(x, y)) !== i)) fail('has duplicate items');
  }

  private object(s: Keywords, v: Record<string, unknown>, at: string, out: SchemaProblem[], fail: (p: string) => void): void {
    const keys = Object.keys(v);
    for (const r of s.required ?? []) if (!Object.hasOwn(v, r)) fail(`lacks the required property ${r}`);
    if (s.minProperties !== undefined && keys.length < s.minProperties) fail(`has fewer than ${s.minProperties} properties`);
    if (s.maxProperties !== undefined && keys.length > s.maxProperties) fail(`has more than ${s.maxProperties} properties`);
    const props: Record<string, Schema> = s.properties ?? {};
    for (const k of keys) {
      const where = `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (s.propertyNames !== undefined) for (const p of this.check(s.propertyNames, k, where)) out.push({ at: where, problem: `property name ${p.problem}` });
      if (Object.hasOwn(props, k)) this.visit(props[k], v[k], where, out);
      else if (s.additionalProperties !== undefined) {
        if (s.additionalProperties === false) fail(`has the property ${k}, which the schema does not allow`);
        else this.visit(s.additionalProperties, v[k], where, out);
      }
    }
  }

  private firstProblems(subs: Schema[], v: unknown, at: string): string {
    return subs
      .map((sub) => this.check(sub, v, at)[0])
      .filter(Boolean)
      .map((p) => `${p.at || '/'} ${p.problem}`)
      .join('; ')
      .slice(0, 400);
  }
}
