/**
 * The value a third-party secret holds until an operator stores the real one (README "First deploy"): a
 * known marker, so `npm run check-secrets` can tell a stage that is not set up (scripts/check-secrets).
 */
export const SECRET_PLACEHOLDER = 'PLACEHOLDER-set-by-operator';
