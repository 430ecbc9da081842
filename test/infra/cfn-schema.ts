/**
 * A template's resources checked against the CloudFormation resource specification (issue 26 point 8): the
 * registry schemas as `@aws-cdk/aws-service-spec` ships them (db.json.gz, the database CDK generates its L1
 * classes from). `cdk synth` checks none of this for properties set through overrides or escape hatches, and
 * CloudFormation finds them only at deploy time, one failed stack update at a time. Checked, per resource:
 * the type exists, no property the type does not have, every required property present, and every value of
 * the property's type (strings, numbers, integers, booleans, date-times, lists, maps, nested property types,
 * tags, unions) and among the values it allows where the specification lists them, walking nested types to
 * the leaves. An intrinsic function (`Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::If`, …) stands for any
 * value, since CloudFormation resolves it at deploy time. Custom resources are held only to `ServiceToken`.
 *
 * Scalars are checked as CloudFormation reads them, not as JSON types them: a template's scalars reach the
 * resource providers as text converted to the schema's type, so `"30"` is a valid integer and `"true"` a valid
 * boolean, while `"thirty"`, `"yes"`, an object or a list in a scalar's place are not.
 */
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
// Types only (erased): the specification's own package, which @aws-cdk/aws-service-spec loads it with.
import type { ResourceProperties as Properties, PropertyType } from '@aws-cdk/service-spec-types';

type SpecDatabase = ReturnType<typeof loadAwsServiceSpecSync>;

/** One finding: where in the template (`Logical.Properties.A.B[0]`) and what is wrong. */
export interface SchemaProblem {
  path: string;
  problem: string;
}

/** What a resource may carry beside its properties (CloudFormation's resource attributes). */
const RESOURCE_KEYS = new Set([
  'Type',
  'Properties',
  'DependsOn',
  'Condition',
  'Metadata',
  'DeletionPolicy',
  'UpdateReplacePolicy',
  'UpdatePolicy',
  'CreationPolicy',
]);
const DELETION_POLICIES = new Set(['Delete', 'Retain', 'RetainExceptOnCreate', 'Snapshot']);

let loaded: SpecDatabase | undefined;
/** The specification, loaded once per process (half a second). */
const spec = (): SpecDatabase => {
  loaded ??= loadAwsServiceSpecSync();
  return loaded;
};

/** An intrinsic function call: one key, `Ref` or `Fn::…` (CloudFormation resolves it, so any value passes). */
export const isIntrinsic = (value: unknown): boolean => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'));
};

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isScalar = (value: unknown): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value);
const shown = (value: unknown): string => (Array.isArray(value) ? 'a list' : value === null ? 'null' : isObject(value) ? 'an object' : JSON.stringify(value));

/** Why `value` is not of `type` (nested problems added to `out`), or nothing when it is. */
function check(type: PropertyType, value: unknown, path: string, out: SchemaProblem[]): void {
  if (isIntrinsic(value)) return;
  const wrong = (expected: string): void => {
    out.push({ path, problem: `expected ${expected}, got ${shown(value)}` });
  };
  switch (type.type) {
    case 'json':
      return;
    case 'string':
    case 'date-time':
      if (!isScalar(value)) wrong(type.type === 'string' ? 'a string' : 'a date-time string');
      else if (type.type === 'date-time' && Number.isNaN(Date.parse(String(value)))) wrong('a date-time string');
      else if (type.type === 'string' && type.allowedValues && !type.allowedValues.includes(String(value))) wrong(`one of ${type.allowedValues.join(', ')}`);
      return;
    case 'number':
      if (!isScalar(value) || typeof value === 'boolean' || String(value).trim() === '' || !Number.isFinite(Number(value))) wrong('a number');
      return;
    case 'integer':
      if (!isScalar(value) || typeof value === 'boolean' || !/^-?\d+$/.test(String(value))) wrong('an integer');
      else if (type.allowedValues && !type.allowedValues.includes(Number(value))) wrong(`one of ${type.allowedValues.join(', ')}`);
      return;
    case 'boolean':
      if (!(typeof value === 'boolean' || value === 'true' || value === 'false')) wrong('a boolean');
      return;
    case 'null':
      if (value !== null) wrong('null');
      return;
    case 'tag':
      if (!isObject(value)) {
        wrong('a tag { Key, Value }');
        return;
      }
      checkProperties(TAG_PROPERTIES, value, path, out);
      return;
    case 'array':
      if (!Array.isArray(value)) {
        wrong('a list');
        return;
      }
      for (const [i, v] of value.entries()) check(type.element, v, `${path}[${i}]`, out);
      return;
    case 'map':
      if (!isObject(value)) {
        wrong('a map');
        return;
      }
      for (const [k, v] of Object.entries(value)) check(type.element, v, `${path}.${k}`, out);
      return;
    case 'union': {
      // Valid when one member takes it whole; otherwise report the member that got furthest (fewest problems).
      let best: SchemaProblem[] | undefined;
      for (const member of type.types) {
        const tried: SchemaProblem[] = [];
        check(member, value, path, tried);
        if (tried.length === 0) return;
        if (!best || tried.length < best.length) best = tried;
      }
      out.push(...(best ?? []));
      return;
    }
    case 'ref': {
      if (!isObject(value)) {
        wrong('an object');
        return;
      }
      const def = spec().get('typeDefinition', type.reference.$ref);
      checkProperties(def.properties, value, path, out);
      return;
    }
  }
}

/** A tag's shape (the specification's builtin `tag` type). */
const TAG_PROPERTIES: Properties = {
  Key: { type: { type: 'string' }, required: true },
  Value: { type: { type: 'string' }, required: true },
};

/** Unknown and missing properties of an object of `props`, and each value against its property's type(s). */
function checkProperties(props: Properties, value: Record<string, unknown>, path: string, out: SchemaProblem[]): void {
  for (const [name, prop] of Object.entries(props)) if (prop.required && !(name in value)) out.push({ path, problem: `missing required property ${name}` });
  for (const [name, v] of Object.entries(value)) {
    const prop = props[name];
    if (!prop) {
      out.push({ path: `${path}.${name}`, problem: 'unknown property' });
      continue;
    }
    // The specification keeps the types a property had before CloudFormation widened it; both are accepted.
    const types = [prop.type, ...(prop.previousTypes ?? [])];
    const attempts = types.map((t) => {
      const found: SchemaProblem[] = [];
      check(t, v, `${path}.${name}`, found);
      return found;
    });
    if (!attempts.some((a) => a.length === 0)) out.push(...attempts[0]);
  }
}

/** Whether the type is a custom resource (its properties are the provider's, not CloudFormation's). */
const isCustom = (type: string): boolean => type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource';

/** Every problem of a template's resources against the CloudFormation resource specification. */
export function schemaProblems(template: { Resources?: Record<string, unknown> }): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  for (const [id, raw] of Object.entries(template.Resources ?? {})) {
    if (!isObject(raw)) {
      out.push({ path: id, problem: 'a resource must be an object' });
      continue;
    }
    for (const key of Object.keys(raw)) if (!RESOURCE_KEYS.has(key)) out.push({ path: `${id}.${key}`, problem: 'unknown resource attribute' });
    for (const key of ['DeletionPolicy', 'UpdateReplacePolicy'])
      if (raw[key] !== undefined && !DELETION_POLICIES.has(String(raw[key]))) out.push({ path: `${id}.${key}`, problem: `not a policy: ${shown(raw[key])}` });
    const type = String(raw.Type ?? '');
    const properties = raw.Properties ?? {};
    if (!isObject(properties)) {
      out.push({ path: `${id}.Properties`, problem: 'expected an object' });
      continue;
    }
    if (isCustom(type)) {
      if (!('ServiceToken' in properties)) out.push({ path: `${id}.Properties`, problem: 'missing required property ServiceToken' });
      continue;
    }
    const found = spec().lookup('resource', 'cloudFormationType', 'equals', type);
    if (found.length !== 1) {
      out.push({ path: `${id}.Type`, problem: `unknown resource type ${shown(type)}` });
      continue;
    }
    checkProperties(found[0].properties, properties, `${id}.Properties`, out);
  }
  return out;
}
