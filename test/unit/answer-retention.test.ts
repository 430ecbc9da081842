import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../shared/clock';
import { expiredAnswers } from '../../shared/files/answer-retention';
import { answerPath } from '../../shared/http/answer-files';

describe('answer file retention (issue 13)', () => {
  const cap = 'A'.repeat(22);
  it('keeps an answer file through the hour after its own and deletes it from then on', () => {
    const hour = 493_000;
    const paths = [answerPath(cap, hour, false), answerPath(cap, hour, true)];
    expect(expiredAnswers(paths, (hour + 2) * HOUR_MS - 1)).toEqual([]);
    expect(expiredAnswers(paths, (hour + 2) * HOUR_MS)).toEqual(paths);
  });

  it('deletes anything under answers/ that no writer makes', () => {
    expect(expiredAnswers(['answers/v1/short/1.json', 'answers/other.txt'], 0)).toEqual(['answers/v1/short/1.json', 'answers/other.txt']);
  });
});
