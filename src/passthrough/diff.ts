/**
 * What became of a JSON document on its way through a gateway: the request chatprobe sent against what the
 * upstream recorded, or the answer the upstream gave against what the client received. Pure functions.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Equal as JSON values: key order ignored (a reordering is reported apart, by keyOrder). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((x, i) => sameJson(x, bs[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && sameJson(ao[k], bo[k]));
}

/** A path into a document: keys and array indexes, e.g. ['messages', 0, 'role']. */
export type Path = readonly (string | number)[];

export const pathText = (path: Path): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');

export function at(doc: unknown, path: Path): unknown {
  let cur = doc;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

/** Gateways' known renames of request fields (from → to), tried before any other key with the same value. */
export const KNOWN_RENAMES: Record<string, string[]> = {
  max_tokens: ['max_completion_tokens', 'max_new_tokens', 'max_output_tokens'],
  max_completion_tokens: ['max_tokens'],
  seed: ['random_seed'],
  stop: ['stop_sequences'],
  user: ['end_user', 'safety_identifier'],
  reasoning_effort: ['reasoning'],
};

export type Fate =
  | { fate: 'unchanged'; value: unknown }
  | { fate: 'renamed'; to: string; value: unknown; changed: boolean }
  | { fate: 'changed'; from: unknown; value: unknown }
  | { fate: 'dropped'; from: unknown };

/**
 * What became of the value at `path` of `sent` in `received`. A top-level key that is gone is renamed when a
 * key the sender did not send holds it (a known rename first, then any key with the same value); else it
 * was dropped. Only called with a document the other side did record: absent here means absent there.
 */
export function fateOf(sent: Record<string, unknown>, received: Record<string, unknown>, path: Path): Fate {
  const from = at(sent, path);
  const value = at(received, path);
  if (value !== undefined) return sameJson(from, value) ? { fate: 'unchanged', value } : { fate: 'changed', from, value };
  if (path.length === 1 && typeof path[0] === 'string') {
    const key = path[0];
    const fresh = (k: string) => !Object.hasOwn(sent, k) && received[k] !== undefined;
    for (const to of KNOWN_RENAMES[key] ?? []) if (fresh(to)) return { fate: 'renamed', to, value: received[to], changed: !sameJson(from, received[to]) };
    // Any other new key holding the same value is a rename only when the value is distinctive: a `false` or
    // a `2` that appears under a new key is as likely a default the gateway added beside a dropped field.
    if (distinctive(from)) for (const to of Object.keys(received)) if (fresh(to) && sameJson(from, received[to])) return { fate: 'renamed', to, value: received[to], changed: false };
  }
  return { fate: 'dropped', from };
}

/** A value unlikely to appear under another key by coincidence: an object, an array, a string of 6 or more. */
const distinctive = (v: unknown): boolean => (typeof v === 'object' && v !== null) || (typeof v === 'string' && v.length >= 6);

/** Top-level keys `received` has that `sent` had not, leaving out those a rename of `sent`'s keys explains. */
export function addedKeys(sent: Record<string, unknown>, received: Record<string, unknown>): string[] {
  const renamedTo = new Set<string>();
  for (const k of Object.keys(sent)) {
    const f = fateOf(sent, received, [k]);
    if (f.fate === 'renamed') renamedTo.add(f.to);
  }
  return Object.keys(received).filter((k) => !Object.hasOwn(sent, k) && received[k] !== undefined && !renamedTo.has(k));
}

/** Every leaf where two documents differ, as short lines ("messages[0].role: "developer" → "system""). */
export function differences(a: unknown, b: unknown, path: (string | number)[] = [], out: string[] = [], max = 20): string[] {
  if (out.length >= max || sameJson(a, b)) return out;
  const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) {
    const where = path.length > 0 ? pathText(path) : '(the whole)';
    if (a === undefined) out.push(`${where}: added ${show(b)}`);
    else if (b === undefined) out.push(`${where}: dropped (was ${show(a)})`);
    else out.push(`${where}: ${show(a)} → ${show(b)}`);
    return out;
  }
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    for (let i = 0; i < Math.max(a.length, bs.length); i++) differences(a[i], bs[i], [...path, i], out, max);
    return out;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) differences(ao[k], bo[k], [...path, k], out, max);
  return out;
}

/** The common top-level keys in the order each side has them, when the orders differ. */
export function keyOrder(sent: Record<string, unknown>, received: Record<string, unknown>): { sent: string[]; received: string[] } | undefined {
  const common = Object.keys(sent).filter((k) => Object.hasOwn(received, k));
  const inReceived = Object.keys(received).filter((k) => Object.hasOwn(sent, k));
  return common.join('\u0000') === inReceived.join('\u0000') ? undefined : { sent: common, received: inReceived };
}

/** A value in a line of text, shortened. */
export function show(v: unknown): string {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}
