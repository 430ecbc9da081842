/**
 * The runbook covers every alarm (issue 26 point 4): each alarm of the production, dev and preview templates
 * has an entry in docs/runbook.md (a `### \`<id>\`` heading, where `<function>`, `<schedule>`, `<queue>` and
 * `<merge-queue>` stand for each name of the manifest) saying what it means and what to do, and no entry names
 * an alarm no template has.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FUNCTIONS, MERGE_QUEUES, QUEUES, SCHEDULES } from '../../shared/topology';
import { ofType, synth } from './synth';

const RUNBOOK = readFileSync(join(import.meta.dirname, '../../docs/runbook.md'), 'utf8');

const PLACEHOLDERS: Record<string, readonly string[]> = {
  '<function>': FUNCTIONS.map((f) => f.name),
  '<schedule>': SCHEDULES.map((s) => s.name),
  '<queue>': QUEUES.map((q) => q.name),
  '<merge-queue>': MERGE_QUEUES.map((q) => q.name),
};

/** Each alarm entry: the ids its heading stands for, and its text up to the next heading. */
function entries(): Array<{ heading: string; ids: string[]; text: string }> {
  const alarms = RUNBOOK.slice(RUNBOOK.indexOf('\n## Alarms'));
  return alarms
    .split('\n### ')
    .slice(1)
    .map((section) => {
      const heading = section.slice(0, section.indexOf('\n'));
      const pattern = /^`([^`]+)`$/.exec(heading.trim())?.[1];
      if (!pattern) throw new Error(`alarm heading is not one id in backticks: ${heading}`);
      const placeholder = Object.keys(PLACEHOLDERS).find((p) => pattern.includes(p));
      const ids = placeholder ? PLACEHOLDERS[placeholder].map((name) => pattern.replace(placeholder, name)) : [pattern];
      return { heading: pattern, ids, text: section };
    });
}

describe('runbook (issue 26 point 4)', () => {
  it('has an entry, saying what it means and what to do, for every alarm of every stage', () => {
    const documented = new Map(entries().flatMap((e) => e.ids.map((id) => [id, e] as const)));
    const inTemplates = new Set<string>();
    for (const stage of ['production', 'dev', 'preview-abc']) {
      const s = synth(stage);
      for (const [, alarm] of ofType(s, 'AWS::CloudWatch::Alarm')) {
        const id = String(alarm.Properties.AlarmName).replace(`${s.stack.stackName}-`, '');
        inTemplates.add(id);
        expect(documented.has(id), `${stage}: alarm ${id} has no runbook entry`).toBe(true);
        expect(String(alarm.Properties.AlarmDescription)).toContain(`Runbook: docs/runbook.md, alarm ${id}`);
      }
    }
    for (const e of entries()) {
      expect(e.text, e.heading).toContain('**Means**');
      expect(e.text, e.heading).toContain('**Do**');
      expect(
        e.ids.filter((id) => !inTemplates.has(id)),
        `${e.heading}: entries for alarms no template has`,
      ).toEqual([]);
    }
  });

  it('says how to bootstrap, deploy, roll back, rotate the secrets and redrive', () => {
    for (const section of ['## Bootstrap', '## Diff and deploy', '## Roll back', '## Rotate the secrets', '## Redrive']) expect(RUNBOOK).toContain(section);
    for (const secret of ['IdentitySecretArn', 'VapidSecretArn', 'VapidPublicSecretArn', 'OriginSecretArn', 'Uploader-hash key'])
      expect(RUNBOOK).toContain(secret);
    expect(RUNBOOK).toContain('npm run deploy -- --stage production -c productionAccount=');
  });
});
