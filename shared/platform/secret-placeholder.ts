/**
 * The value a third-party secret holds until an operator stores the real one (docs/deploying.md): a
 * known marker, so `npm run check-secrets` can tell a stage that is not set up (scripts/check-secrets), and a
 * function that reads one says so at every cold start (shared/platform/aws.ts).
 */
export const SECRET_PLACEHOLDER = 'PLACEHOLDER-set-by-operator';

/** The variables of a cold start's secret values that still hold the placeholder (names only, never values). */
export function placeholderVariables(values: Record<string, string>): string[] {
  return Object.entries(values)
    .filter(([, v]) => v.includes(SECRET_PLACEHOLDER))
    .map(([k]) => k);
}
