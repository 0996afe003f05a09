/** A parsed JSON value that is an object (not null, not an array): the shape every reader checks first. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
