/**
 * Issue 26 point 8: the template is valid CloudFormation beyond what `cdk synth` checks. Every resource of the
 * synthesized stages is held to the CloudFormation resource specification (test/infra/cfn-schema.ts), and
 * templates broken on purpose show that an unknown property, a missing required one or a value of the wrong
 * type fails, nested types included, while an intrinsic function passes wherever it stands.
 */
import { describe, expect, it } from 'vitest';
import { schemaProblems } from './cfn-schema';
import { functionId, ofType, productionWithDomains, type Synthesized, synth } from './synth';

const STAGES = ['production', 'dev', 'preview-abc', productionWithDomains()] as const;

describe('the synthesized stages against the CloudFormation resource specification', () => {
  it.each(STAGES.map((s) => [typeof s === 'string' ? s : s.key, s] as const))('%s: every resource’s properties are valid', (_name, stage) => {
    const s = synth(stage);
    expect(Object.keys(s.resources).length).toBeGreaterThan(100);
    expect(schemaProblems(s.template.toJSON())).toEqual([]);
  });
});

/** A resource as the broken templates edit it (any property may be set to anything). */
interface Editable {
  Type: string;
  [attribute: string]: unknown;
  Properties: { [name: string]: unknown; Environment: { [name: string]: unknown; Variables: Record<string, unknown> } };
}

describe('a template broken on purpose fails the check', () => {
  /** Production's template with one resource changed by `change` (a deep copy: the cached stage stays intact). */
  const broken = (pick: (s: Synthesized) => string, change: (resource: Editable) => void) => {
    const s = synth('production');
    const id = pick(s);
    const template = structuredClone(s.template.toJSON()) as { Resources: Record<string, Editable> };
    change(template.Resources[id]);
    return { id, problems: schemaProblems(template) };
  };
  const upload = (s: Synthesized) => functionId(s, 'upload');
  const aQueue = (s: Synthesized) => ofType(s, 'AWS::SQS::Queue')[0][0];

  it('an unknown property, at the top or in a nested property type', () => {
    const top = broken(upload, (r) => {
      r.Properties.MemorySise = 512;
    });
    expect(top.problems).toEqual([{ path: `${top.id}.Properties.MemorySise`, problem: 'unknown property' }]);
    const nested = broken(upload, (r) => {
      r.Properties.Environment.Variable = { A: 'b' };
    });
    expect(nested.problems).toEqual([{ path: `${nested.id}.Properties.Environment.Variable`, problem: 'unknown property' }]);
  });

  it('a missing required property, at the top or in a nested property type', () => {
    const top = broken(upload, (r) => {
      delete r.Properties.Code;
    });
    expect(top.problems).toEqual([{ path: `${top.id}.Properties`, problem: 'missing required property Code' }]);
    const nested = broken(upload, (r) => {
      r.Properties.Tags = [{ Key: 'team' }];
    });
    expect(nested.problems).toEqual([{ path: `${nested.id}.Properties.Tags[0]`, problem: 'missing required property Value' }]);
  });

  it('a value of the wrong primitive type, or a scalar, list or object where another is due', () => {
    const cases: Array<[string, unknown, string]> = [
      ['MemorySize', 'lots', 'expected an integer, got "lots"'],
      ['MemorySize', 512.5, 'expected an integer, got 512.5'],
      ['MemorySize', true, 'expected an integer, got true'],
      ['Timeout', { seconds: 30 }, 'expected an integer, got an object'],
      ['Description', ['a', 'b'], 'expected a string, got a list'],
      ['Architectures', 'arm64', 'expected a list, got "arm64"'],
      ['Environment', 'A=b', 'expected an object, got "A=b"'],
    ];
    for (const [property, value, problem] of cases) {
      const { id, problems } = broken(upload, (r) => {
        r.Properties[property] = value;
      });
      expect(problems).toEqual([{ path: `${id}.Properties.${property}`, problem }]);
    }
    const deep = broken(upload, (r) => {
      r.Properties.Environment.Variables.STAGE = { nested: true };
    });
    expect(deep.problems).toEqual([{ path: `${deep.id}.Properties.Environment.Variables.STAGE`, problem: 'expected a string, got an object' }]);
    const flag = broken(aQueue, (r) => {
      r.Properties.FifoQueue = 'yes';
    });
    expect(flag.problems).toEqual([{ path: `${flag.id}.Properties.FifoQueue`, problem: 'expected a boolean, got "yes"' }]);
  });

  it('a value the property does not allow (the specification’s enumerations)', () => {
    const packaging = broken(upload, (r) => {
      r.Properties.PackageType = 'Jar';
    });
    expect(packaging.problems).toEqual([{ path: `${packaging.id}.Properties.PackageType`, problem: 'expected one of Image, Zip, got "Jar"' }]);
    const logGroup = (s: Synthesized) => ofType(s, 'AWS::Logs::LogGroup')[0][0];
    const retention = broken(logGroup, (r) => {
      r.Properties.RetentionInDays = 10;
    });
    expect(retention.problems).toEqual([
      { path: `${retention.id}.Properties.RetentionInDays`, problem: expect.stringMatching(/^expected one of 1, 3, 5, 7, 14, 30, .*, got 10$/) },
    ]);
    expect(
      broken(logGroup, (r) => {
        r.Properties.RetentionInDays = '30';
      }).problems,
    ).toEqual([]);
  });

  it('an unknown resource type, resource attribute or deletion policy', () => {
    const type = broken(aQueue, (r) => {
      r.Type = 'AWS::SQS::Queues';
    });
    expect(type.problems).toEqual([{ path: `${type.id}.Type`, problem: 'unknown resource type "AWS::SQS::Queues"' }]);
    const attribute = broken(aQueue, (r) => {
      r.DeletePolicy = 'Retain';
      r.UpdateReplacePolicy = 'Keep';
    });
    expect(attribute.problems).toEqual([
      { path: `${attribute.id}.DeletePolicy`, problem: 'unknown resource attribute' },
      { path: `${attribute.id}.UpdateReplacePolicy`, problem: 'not a policy: "Keep"' },
    ]);
  });

  it('passes intrinsic functions wherever they stand, and scalars as CloudFormation reads them', () => {
    const fine = broken(upload, (r) => {
      r.Properties.MemorySize = { Ref: 'SomeParameter' };
      r.Properties.Timeout = '30';
      r.Properties.Architectures = { 'Fn::Split': [',', 'arm64'] };
      r.Properties.TracingConfig = { 'Fn::If': ['SomeCondition', { Mode: 'Active' }, { Ref: 'AWS::NoValue' }] };
      r.Properties.Tags = [{ Key: 'team', Value: { 'Fn::Join': ['-', [{ Ref: 'AWS::StackName' }, 'team']] } }];
    });
    expect(fine.problems).toEqual([]);
    // Not an intrinsic: two keys, or a key that is no function.
    const notIntrinsic = broken(upload, (r) => {
      r.Properties.MemorySize = { Ref: 'SomeParameter', 'Fn::Join': ['', []] };
    });
    expect(notIntrinsic.problems).toEqual([{ path: `${notIntrinsic.id}.Properties.MemorySize`, problem: 'expected an integer, got an object' }]);
  });
});
