/**
 * The origin-verify secret's values (issue 11 point 2, shared/http/edge.ts): parsed on the ground floor because
 * the configuration reads the local runtime's value from the environment and must not import the HTTP layer.
 */

/** Shorter values are never accepted, so a half-configured secret cannot become a guessable one. */
export const ORIGIN_SECRET_MIN_LENGTH = 32;

/** The values a secret string `{"current": …, "previous"?: …}` accepts (none when it is malformed). */
export function originSecretValues(secretString: string | undefined): string[] {
  if (!secretString) return [];
  let doc: unknown;
  try {
    doc = JSON.parse(secretString);
  } catch {
    return [];
  }
  if (!doc || typeof doc !== 'object') return [];
  const { current, previous } = doc as Record<string, unknown>;
  return [current, previous].filter((v): v is string => typeof v === 'string' && v.length >= ORIGIN_SECRET_MIN_LENGTH);
}
