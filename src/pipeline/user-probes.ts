import { readFileSync, statSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseProbeFile, PROBE_SCHEMA_URL } from '../config/probe-file.js';
import { defineProbe, type ProbeDefinition } from '../engine/probe.js';
import { CannotTestError } from '../errors.js';
import { oneLine } from '../text.js';
import { notJson, unreadable } from '../words.js';
import { declarativeProbe } from '../../suites/support/declarative.js';
import { PROBES } from '../../suites/index.js';

/**
 * The user's own probes (--probe-file, `probeFile` in the config file), loaded before anything is sent:
 * an ES module whose default export is a probe made with `defineProbe` (imported from 'chatprobe') or a
 * list of them, or a declarative `.json` probe (src/config/probe-file.ts). Every problem is a
 * CannotTestError that names the file and says what to do: a run never starts without a probe it was given.
 */

const MODULE = new Set(['.mjs', '.js', '.cjs']);
const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

const ID_HINT = "an id is area.feature[.aspect] (lowercase letters, digits and _), starting with its area (e.g. acme.safe_mode), and a probe's verdicts are those of its kind";

/** The kinds of file a probe file may be, for messages. */
const KINDS = 'a .mjs module whose default export is a defineProbe (or a list of them), or a declarative .json probe';

/**
 * Makes `import … from 'chatprobe'` in a probe file mean the chatprobe that runs it, wherever the file is:
 * one written outside any project (no node_modules) must load, and one in a project with another
 * chatprobe installed is still run by this one's engine, whose API it is then written against. The
 * package is found by its own name from this module (Node resolves a package's own name inside it, by
 * its package.json "exports"), so the built CLI, npx's copy and a clone all point at themselves.
 */
let redirected = false;
function resolveChatprobeToItself(): void {
  if (redirected) return;
  redirected = true;
  let entry: string;
  try {
    entry = pathToFileURL(createRequire(import.meta.url).resolve('chatprobe')).href;
  } catch {
    // Not inside the package (a bundle of chatprobe inside something else): the file resolves 'chatprobe' as Node does.
    return;
  }
  const hooks = `let entry;
export function initialize(data) { entry = data.entry; }
export async function resolve(specifier, context, next) {
  return specifier === 'chatprobe' ? { url: entry, shortCircuit: true } : next(specifier, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { entry } });
}

/** Why a module could not be loaded, in words, and what to do about it. */
function notLoaded(file: string, e: unknown): CannotTestError {
  const error = e as NodeJS.ErrnoException;
  const ext = extname(file).toLowerCase();
  if (TYPESCRIPT.has(ext) && error?.code === 'ERR_UNKNOWN_FILE_EXTENSION') {
    return new CannotTestError(
      `probe file ${file} is TypeScript, which Node ${process.version} does not run by itself`,
      'run chatprobe on Node 22.18 or later (it strips the types itself; 22.6 and later with NODE_OPTIONS=--experimental-strip-types), or with a loader (NODE_OPTIONS="--import tsx", tsx installed), or compile the file to .mjs',
    );
  }
  const message = oneLine(String(error?.message ?? e)).slice(0, 300);
  // tsx and ts-node read a .ts outside a package of "type": "module" as CommonJS, whose require() cannot load chatprobe's ES modules.
  if ((ext === '.ts' || ext === '.cts') && /require\(\)|Cannot find module 'chatprobe'/.test(message)) {
    return new CannotTestError(`probe file ${file} was loaded as CommonJS, which cannot import chatprobe: ${message}`, 'name it .mts: an ES module whatever the package.json around it says');
  }
  if (ext === '.js' && error instanceof SyntaxError && /import statement outside a module|Unexpected token 'export'/.test(message)) {
    return new CannotTestError(`probe file ${file} is read as CommonJS, so its import and export statements are not understood`, 'name it .mjs (a .js file is an ES module only under a package.json with "type": "module")');
  }
  // defineProbe's own complaints, thrown as the file defines its probes.
  if (/^probe (id )?"/.test(message)) return new CannotTestError(`probe file ${file} could not be loaded: ${message}`, ID_HINT);
  return new CannotTestError(`probe file ${file} could not be loaded: ${message}`, `a probe file is ${KINDS}`);
}

/** A module's default export as probes: each checked and made again with chatprobe's own defineProbe. */
function probesOf(file: string, exported: unknown): ProbeDefinition[] {
  const usage = "end it with export default defineProbe({ ... }) (or a list of them), defineProbe imported from 'chatprobe'";
  if (exported === undefined) throw new CannotTestError(`probe file ${file} has no default export`, usage);
  const list = Array.isArray(exported) ? exported : [exported];
  if (list.length === 0) throw new CannotTestError(`probe file ${file} exports an empty list: no probe`, usage);
  return list.map((p, i) => {
    const which = Array.isArray(exported) ? `item ${i} of its default export` : 'its default export';
    const flaw = probeFlaw(p);
    if (flaw) throw new CannotTestError(`probe file ${file}: ${which} is not a probe (${flaw})`, usage);
    try {
      return defineProbe({ ...(p as ProbeDefinition) });
    } catch (e) {
      throw new CannotTestError(`probe file ${file}: ${oneLine((e as Error).message)}`, ID_HINT);
    }
  });
}

/** What a value lacks to be a probe, or undefined: the fields the engine reads, of the types it reads them as. */
function probeFlaw(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null) return `got ${p === null ? 'null' : typeof p}`;
  const d = p as Record<string, unknown>;
  if (typeof d.id !== 'string') return 'no string id';
  if (typeof d.area !== 'string') return 'no string area';
  if (d.kind !== 'capability' && d.kind !== 'conformance') return 'kind is neither "capability" nor "conformance"';
  if (typeof d.requirement !== 'string' || d.requirement.trim() === '') return 'no requirement';
  if (!Array.isArray(d.verdicts) || d.verdicts.length === 0) return 'no verdicts list';
  if (d.scope !== undefined && d.scope !== 'model' && d.scope !== 'target') return 'scope is neither "model" nor "target"';
  if (d.tier !== undefined && d.tier !== 'default' && d.tier !== 'extended') return 'tier is neither "default" nor "extended"';
  const cost = d.cost as Record<string, unknown> | undefined;
  const count = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (typeof cost !== 'object' || cost === null || !count(cost.requests) || !count(cost.maxTokens)) return 'no cost { requests, maxTokens } of numbers ≥ 0 (what --dry-run counts)';
  if (cost.shared !== undefined && !Array.isArray(cost.shared)) return 'cost.shared is not a list';
  if (typeof d.run !== 'function') return 'no run function';
  return undefined;
}

/** One file's probes. */
async function loadFile(file: string, cwd: string): Promise<ProbeDefinition[]> {
  const path = resolve(cwd, file);
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error('folder'), { code: 'EISDIR' });
  } catch (e) {
    throw new CannotTestError(`cannot read probe file ${file}: ${unreadable(e)}`, `a probe file is ${KINDS}`);
  }
  const ext = extname(path).toLowerCase();
  if (ext === '.json') {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new CannotTestError(`cannot read probe file ${file}: ${unreadable(e)}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new CannotTestError(`invalid probe file ${file}: not JSON${notJson(text)}`, `a .json probe file is a declarative probe: ${PROBE_SCHEMA_URL}`);
    }
    return [declarativeProbe(parseProbeFile(raw, file))];
  }
  if (!MODULE.has(ext) && !TYPESCRIPT.has(ext)) throw new CannotTestError(`probe file ${file}: expected a .mjs, .js, .ts or .json file`, `a probe file is ${KINDS}`);
  resolveChatprobeToItself();
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (e) {
    throw notLoaded(file, e);
  }
  return probesOf(file, mod.default);
}

/**
 * The probes of the files given, in their order, each file's in its own order; an id of chatprobe's own
 * probes (`builtIn`), or one two files share, is refused: ids key the baseline, --probes and CI history.
 */
export async function loadProbeFiles(files: readonly string[], builtIn: readonly ProbeDefinition[] = PROBES, cwd = process.cwd()): Promise<ProbeDefinition[]> {
  const own = new Set(builtIn.map((p) => p.id));
  const from = new Map<string, string>();
  const out: ProbeDefinition[] = [];
  for (const file of files) {
    for (const p of await loadFile(file, cwd)) {
      if (own.has(p.id)) throw new CannotTestError(`probe file ${file}: ${p.id} is the id of one of chatprobe's own probes`, 'give it an id of your own, under an area named for your product or team (e.g. acme.safe_mode)');
      const other = from.get(p.id);
      if (other !== undefined) throw new CannotTestError(`probe file ${file}: ${p.id} is also the id of a probe in ${other}`, 'each probe needs an id of its own: ids key the baseline and --probes');
      from.set(p.id, file);
      out.push(p);
    }
  }
  return out;
}

/** chatprobe's own probes and those of the files given: what a run of the CLI chooses from. */
export async function withProbeFiles(files: readonly string[]): Promise<readonly ProbeDefinition[]> {
  return files.length === 0 ? PROBES : [...PROBES, ...(await loadProbeFiles(files))];
}
