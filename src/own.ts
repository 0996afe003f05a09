/**
 * Sets an own, enumerable property, as Object.fromEntries or a spread defines one: a key named
 * "__proto__" (a server's JSON key, a header, a probe's field) is a plain key, not the object's prototype.
 */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
