/**
 * The cdk-nag packs every synth runs, AWS Solutions and Serverless (issue 26 point 2), with every unsuppressed
 * finding an error.
 *
 * cdk-nag reports findings of warning-level rules (DDB3, CFR1, CFR2, …) as warning annotations, which
 * `cdk synth` prints and passes. The logger below adds an error annotation on the resource for each of them,
 * and for a rule that could not be evaluated, so an unsuppressed finding of any level fails `cdk synth` and
 * `cdk deploy`. Suppressed findings stay silent (test/infra/nag-reviewed.ts lists the reviewed ones).
 */
import { Annotations, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks, type INagLogger, type NagLoggerErrorData, type NagLoggerNonComplianceData, NagMessageLevel, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

class FindingsFailSynth implements INagLogger {
  onNonCompliance(data: NagLoggerNonComplianceData): void {
    // Error-level findings already are error annotations (cdk-nag's own logger).
    if (data.ruleLevel === NagMessageLevel.ERROR) return;
    const finding = data.findingId ? `[${data.findingId}]` : '';
    Annotations.of(data.resource).addError(`${data.ruleId}${finding}: unsuppressed ${data.ruleLevel} fails synth: ${data.ruleInfo}`);
  }
  onError(data: NagLoggerErrorData): void {
    Annotations.of(data.resource).addError(`${data.ruleId}: the rule could not be checked, which fails synth: ${data.errorMessage}`);
  }
  onCompliance(): void {}
  onSuppressed(): void {}
  onSuppressedError(): void {}
  onNotApplicable(): void {}
}

/**
 * Adds the AWS Solutions and the Serverless checks to `scope`, every unsuppressed finding (warnings included)
 * an error.
 */
export function addAwsSolutionsChecks(scope: IConstruct): void {
  Aspects.of(scope).add(new AwsSolutionsChecks({ additionalLoggers: [new FindingsFailSynth()] }));
  Aspects.of(scope).add(new ServerlessChecks({ additionalLoggers: [new FindingsFailSynth()] }));
}
