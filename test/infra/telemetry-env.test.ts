import { describe, expect, it } from 'vitest';
import { STAGES } from '../../lib/stages';
import { FUNCTIONS } from '../../shared/topology';
import { environmentOf, synth } from './synth';

/** Infra (issue 12, point 4): each function's Powertools settings: its service name, the namespace, sampled debug. */
describe('telemetry settings of the functions', () => {
  it('names each function as its service, counts under MarketData and samples debug at the stage value', () => {
    const dev = synth('dev');
    for (const spec of FUNCTIONS) {
      expect(environmentOf(dev, spec.name)).toMatchObject({
        POWERTOOLS_SERVICE_NAME: spec.name,
        POWERTOOLS_METRICS_NAMESPACE: 'MarketData',
        POWERTOOLS_LOGGER_SAMPLE_RATE: '0.01',
      });
    }
    const sampled = synth({ key: 'dev+sampled', config: { ...STAGES.dev, logSampleRate: 0.5 } });
    expect(environmentOf(sampled, 'api').POWERTOOLS_LOGGER_SAMPLE_RATE).toBe('0.5');
  });
});
