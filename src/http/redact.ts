/**
 * The key must appear nowhere but in the target's Authorization header. Every string that leaves the
 * process (reports, trace, console, error messages a server echoes back) passes through a Redactor.
 */
export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

/** Headers whose values are secrets when a user passes them with --header. */
const SECRET_HEADER = /auth|key|token|secret|cookie|session|password/i;

export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    needles.add(secret);
    // The same secret as it appears inside JSON text or a URL.
    needles.add(JSON.stringify(secret).slice(1, -1));
    needles.add(encodeURIComponent(secret));
  }
  // Longest first, so a secret that contains another is removed whole.
  const ordered = [...needles].filter((n) => n.length > 0).sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const needle of ordered) {
      if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    }
    return out;
  };
}
