/**
 * What became of a JSON document on its way through a gateway: the request chatprobe sent against what the
 * upstream recorded, or the answer the upstream gave against what the client received. Pure functions.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Equal as JSON values: key order ignored (a reordering is reported apart, by keyOrder). A loop over a
 * stack of pairs, not a recursion: a gateway's body can nest as deep as it likes.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    if (x === y) continue;
    if (typeof x !== typeof y || x === null || y === null || typeof x !== 'object') return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      for (let i = 0; i < x.length; i++) {
        left.push(x[i]);
        right.push(ys[i]);
      }
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    let defined = 0;
    for (const k in xo) {
      if (!Object.hasOwn(xo, k) || xo[k] === undefined) continue;
      if (!Object.hasOwn(yo, k)) return false;
      defined++;
      left.push(xo[k]);
      right.push(yo[k]);
    }
    for (const k in yo) if (Object.hasOwn(yo, k) && yo[k] !== undefined) defined--;
    if (defined !== 0) return false;
  }
  return true;
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

/** Added keys listed at most: each becomes a finding, and a report shows twenty. */
export const MAX_ADDED_KEYS = 64;

/**
 * Top-level keys `received` has that `sent` had not, leaving out those a rename of `sent`'s keys explains:
 * the first MAX_ADDED_KEYS of them.
 */
export function addedKeys(sent: Record<string, unknown>, received: Record<string, unknown>): string[] {
  const renamedTo = new Set<string>();
  for (const k of Object.keys(sent)) {
    const f = fateOf(sent, received, [k]);
    if (f.fate === 'renamed') renamedTo.add(f.to);
  }
  const added: string[] = [];
  for (const k in received) {
    if (added.length >= MAX_ADDED_KEYS) break;
    if (Object.hasOwn(received, k) && !Object.hasOwn(sent, k) && received[k] !== undefined && !renamedTo.has(k)) added.push(k);
  }
  return added;
}

/** Levels differences descends: below them, a difference is said as found, not located further. */
export const MAX_DIFF_DEPTH = 64;

/**
 * Every leaf where two documents differ, as short lines ("messages[0].role: "developer" → "system""), the
 * first `max` of them. Bounded whatever the documents: MAX_DIFF_DEPTH levels deep, and done once `max`
 * are found.
 */
export function differences(a: unknown, b: unknown, path: (string | number)[] = [], out: string[] = [], max = 20): string[] {
  if (out.length >= max || sameJson(a, b)) return out;
  const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  const where = path.length > 0 ? pathText(path) : '(the whole)';
  if (bothObjects && path.length >= MAX_DIFF_DEPTH) {
    out.push(`${where}: differs deeper than ${MAX_DIFF_DEPTH} levels (chatprobe located it no further)`);
    return out;
  }
  if (!bothObjects) {
    if (a === undefined) out.push(`${where}: added ${show(b)}`);
    else if (b === undefined) out.push(`${where}: dropped (was ${show(a)})`);
    else out.push(`${where}: ${show(a)} → ${show(b)}`);
    return out;
  }
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    for (let i = 0; i < Math.max(a.length, bs.length) && out.length < max; i++) differences(a[i], bs[i], [...path, i], out, max);
    return out;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    if (out.length >= max) break;
    differences(ao[k], bo[k], [...path, k], out, max);
  }
  return out;
}

/** The common top-level keys in the order each side has them, when the orders differ. */
export function keyOrder(sent: Record<string, unknown>, received: Record<string, unknown>): { sent: string[]; received: string[] } | undefined {
  const common = Object.keys(sent).filter((k) => Object.hasOwn(received, k));
  const inReceived = Object.keys(received).filter((k) => Object.hasOwn(sent, k));
  return common.join('\u0000') === inReceived.join('\u0000') ? undefined : { sent: common, received: inReceived };
}

/** Characters of a value in a line of text. */
const SHOWN = 80;

/** A value in a line of text, shortened: written out only as far as it is shown, however deep or large. */
export function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = jsonStart(v, SHOWN + 1);
  return s.length > SHOWN ? `${s.slice(0, SHOWN - 3)}…` : s;
}

/**
 * The start of a value's JSON text, at least `chars` characters of it when it is that long: as
 * JSON.stringify writes it (no spaces, undefined members left out), but written no further than needed.
 */
function jsonStart(v: unknown, chars: number): string {
  const out: string[] = [];
  let length = 0;
  const put = (s: string): boolean => {
    out.push(s);
    length += s.length;
    return length < chars;
  };
  const write = (x: unknown, inArray: boolean): boolean => {
    if (typeof x === 'string') return put(JSON.stringify(x.length > chars ? x.slice(0, chars) : x));
    if (typeof x === 'number') return put(Number.isFinite(x) ? String(x) : 'null');
    if (typeof x === 'boolean' || x === null) return put(String(x));
    if (typeof x !== 'object') return put(inArray ? 'null' : '');
    if (Array.isArray(x)) {
      if (!put('[')) return false;
      for (let i = 0; i < x.length; i++) if ((i > 0 && !put(',')) || !write(x[i], true)) return false;
      return put(']');
    }
    if (!put('{')) return false;
    let first = true;
    for (const k in x) {
      const item = (x as Record<string, unknown>)[k];
      if (!Object.hasOwn(x, k) || item === undefined || typeof item === 'function') continue;
      if (!first && !put(',')) return false;
      first = false;
      if (!put(`${JSON.stringify(k.length > chars ? k.slice(0, chars) : k)}:`) || !write(item, false)) return false;
    }
    return put('}');
  };
  write(v, false);
  return out.join('');
}
