/**
 * Traces (issue 26 point 1), in the template: X-Ray active tracing on every function where the stage traces
 * (production; dev and previews when switched on), the Powertools Tracer told the same, and the role allowed
 * to write segments. HTTP and WebSocket APIs have no X-Ray in API Gateway (REST APIs only): a request's trace
 * starts at its function (docs/interpretations.md).
 */
import { describe, expect, it } from 'vitest';
import { STAGES } from '../../lib/stages';
import { FUNCTIONS } from '../../shared/topology';
import { actionsOf, environmentOf, functionId, statementsOf, synth } from './synth';

describe('traces in the template (issue 26 point 1)', () => {
  it('production: every function is actively traced, its Tracer on and its role allowed to write segments', () => {
    const s = synth('production');
    for (const spec of FUNCTIONS) {
      expect({ fn: spec.name, tracing: s.resources[functionId(s, spec.name)].Properties.TracingConfig }).toEqual({
        fn: spec.name,
        tracing: { Mode: 'Active' },
      });
      expect(environmentOf(s, spec.name).POWERTOOLS_TRACE_ENABLED).toBe('true');
      expect(statementsOf(s, spec.name).flatMap(actionsOf)).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
    }
  });

  it('dev and previews: off by default (the Tracer too), on with the stage switch', () => {
    for (const stage of ['dev', 'preview-abc']) {
      const s = synth(stage);
      for (const spec of FUNCTIONS) {
        expect((s.resources[functionId(s, spec.name)].Properties.TracingConfig as { Mode?: string } | undefined)?.Mode ?? 'PassThrough').not.toBe('Active');
        expect(environmentOf(s, spec.name).POWERTOOLS_TRACE_ENABLED).toBe('false');
        expect(statementsOf(s, spec.name).flatMap(actionsOf)).not.toContain('xray:PutTraceSegments');
      }
    }
    const traced = synth({ key: 'dev+tracing', config: { ...STAGES.dev, tracing: true } });
    for (const spec of FUNCTIONS) {
      expect(traced.resources[functionId(traced, spec.name)].Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(environmentOf(traced, spec.name).POWERTOOLS_TRACE_ENABLED).toBe('true');
    }
  });
});
