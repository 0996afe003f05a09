import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * The plan of the code, lowest layer first. A file may import from its own folder and from any folder of
 * a lower layer; never from a higher layer, nor from another folder of its own layer. Read top to bottom:
 * bytes from the network are read as the wire says, what they show is kept as results, everything that
 * leaves the process passes the boundary, the engine runs the probes, and the record, the report, the
 * tools, the options and the command line are built on top. The reference server, passthrough, config and
 * the CLI sit high so that nothing below leans on them: a lower layer takes what it needs as arguments.
 *
 * A layer holds whole folders (with their subfolders) or, at the root of src/, single files; the single
 * files of one layer count as one folder. A new folder or root file must be placed here (the test names
 * any file that is in no layer).
 */
interface Layer {
  name: string;
  /** What lives there, for a reader finding their way. */
  holds: string;
  folders?: readonly string[];
  files?: readonly string[];
}

const LAYERS: readonly Layer[] = [
  {
    name: 'base',
    holds: 'helpers every layer may use: CannotTestError, id globs, own-property setting, text as shown (controls, clip, wrap), the version, messages in our words',
    files: ['src/errors.ts', 'src/glob.ts', 'src/own.ts', 'src/text.ts', 'src/version.ts', 'src/words.ts'],
  },
  {
    name: 'bytes',
    holds: 'the HTTP client (undici, byte caps, deadlines, typed transport failures); the PNG writer and reader of the image probe',
    folders: ['src/http', 'src/media'],
  },
  { name: 'wire', holds: 'readers of what servers send: JSON depth, SSE, the stream assembler, choices, usage, error bodies, schemas', folders: ['src/wire'] },
  { name: 'results', holds: 'what a run found: the Report model, causes, a cell\'s outcome, row views, declared vs observed', folders: ['src/results'] },
  { name: 'boundary', holds: 'what leaves the process: secrets removed, controls shown, sizes and depths cut, for every sink', folders: ['src/boundary'] },
  { name: 'engine', holds: 'runs probes: discovery, plan, the call log, exchanges, scheduling, the probe context and shared verdict rules', folders: ['src/engine'] },
  { name: 'billing', holds: 'balance routes of gateways and the metered calls the billing probes judge', folders: ['src/billing'] },
  { name: 'probes', holds: 'the probes, one file per feature, and their pure judgements in suites/support', folders: ['suites'] },
  { name: 'record', holds: 'the run\'s record (record.jsonl.gz): written as the run goes, read back and answered again offline', folders: ['src/record'] },
  { name: 'report', holds: 'gate against a baseline, compare, merge, HAR, and the writers (json, junit, markdown, html, console, GitHub)', folders: ['src/report'] },
  {
    name: 'tools',
    holds: 'the passthrough audit of a gateway (with its scripted upstream) and the reference server that imitates real ones',
    folders: ['src/passthrough', 'src/reference'],
  },
  { name: 'config', holds: 'the options schema the flags and the config file are derived from', folders: ['src/config'] },
  {
    name: 'pipeline',
    holds: 'the audit whole, as the CLI and a program run it: observe (or replay a record), record, judge, gate, render; doctor, merge, passthrough',
    folders: ['src/pipeline'],
  },
  { name: 'cli', holds: 'the commands: read the line, call the pipeline, print', folders: ['src/cli'] },
  { name: 'library', holds: 'the public API of the package', files: ['src/index.ts'] },
];

/**
 * Imports that go the wrong way today: each says why it is there and what removes it. An exception whose
 * import is gone fails the test until it is taken out of this list, so the list stays the work left.
 */
interface Exception {
  from: string;
  to: string;
  why: string;
  toRemove: string;
}

const EXCEPTIONS: readonly Exception[] = [];

type Edge = { from: string; to: string };

/** Every .ts file under src/ and suites/, as a path from the repository root with forward slashes. */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) out.push(relative(ROOT, path).split(sep).join('/'));
    }
  };
  walk(join(ROOT, 'src'));
  walk(join(ROOT, 'suites'));
  return out.sort();
}

/**
 * The files each file imports: static imports (type-only ones too: they tie the code as much), `export …
 * from`, and `import('…')`. TypeScript's own scanner reads them, so a specifier in a comment or a string
 * is not taken for one. Packages and files outside src/ and suites/ (package.json, fixtures) are left out.
 */
function importGraph(files: readonly string[]): { edges: Edge[]; unresolved: string[] } {
  const known = new Set(files);
  const edges: Edge[] = [];
  const unresolved: string[] = [];
  for (const from of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, from), 'utf8'), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (!spec.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(from), spec));
      if (!/^(src|suites)\//.test(target) || target.endsWith('.json')) continue;
      const to = target.replace(/\.js$/, '.ts');
      if (known.has(to)) edges.push({ from, to });
      else unresolved.push(`${from} imports '${spec}', which is no .ts file here`);
    }
  }
  return { edges, unresolved };
}

/** Where a file sits: its layer's position and its unit (a folder, or a layer's root files together). */
function placeOf(file: string): { rank: number; layer: string; unit: string } | undefined {
  for (const [rank, layer] of LAYERS.entries()) {
    if (layer.files?.includes(file)) return { rank, layer: layer.name, unit: layer.name };
    const folder = layer.folders?.find((f) => file.startsWith(`${f}/`));
    if (folder) return { rank, layer: layer.name, unit: folder };
  }
  return undefined;
}

/** The import cycles between files, each as its files in order, the first repeated at the end. */
function cyclesOf(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)!.push(e.to);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const to of next.get(file)!) {
      if (state.get(to) === 'open') cycles.push([...path.slice(path.indexOf(to)), to]);
      else if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
}

/** The imports that go up a layer or sideways within one, other than the declared exceptions. */
function wrongWay(edges: readonly Edge[], exceptions: readonly Exception[]): { wrong: string[]; excused: Set<string> } {
  const wrong: string[] = [];
  const excused = new Set<string>();
  for (const { from, to } of edges) {
    const a = placeOf(from)!;
    const b = placeOf(to)!;
    if (a.unit === b.unit || b.rank < a.rank) continue;
    const key = `${from} → ${to}`;
    if (exceptions.some((x) => x.from === from && x.to === to)) excused.add(key);
    else wrong.push(`${key} (${a.layer} may not import ${b.layer === a.layer ? `another ${b.layer} folder` : b.layer})`);
  }
  return { wrong, excused };
}

describe('the layers of the code', () => {
  const files = sourceFiles();
  const { edges, unresolved } = importGraph(files);

  it('reads every import it finds', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(files.length);
    // A dynamic import is read too: the CLI loads each command's code when it runs.
    expect(edges).toContainEqual({ from: 'src/cli/main.ts', to: 'src/cli/audit.ts' });
    expect(unresolved).toEqual([]);
  });

  it('places every file in a layer', () => {
    expect(files.filter((f) => !placeOf(f))).toEqual([]);
    const named = LAYERS.flatMap((l) => [...(l.files ?? []), ...(l.folders ?? [])]);
    expect(named.filter((n) => !existsSync(join(ROOT, n)))).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(cyclesOf(files, edges).map((c) => c.join(' → '))).toEqual([]);
  });

  it('imports only from its own folder or a lower layer', () => {
    const { wrong, excused } = wrongWay(edges, EXCEPTIONS);
    expect(wrong).toEqual([]);
    expect(EXCEPTIONS.map((x) => `${x.from} → ${x.to}`).filter((k) => !excused.has(k))).toEqual([]);
  });

  it('finds a cycle and a wrong-way import when there is one', () => {
    const planted = [...edges, { from: 'src/wire/sse.ts', to: 'src/engine/exchange.ts' }];
    expect(wrongWay(planted, EXCEPTIONS).wrong).toContain('src/wire/sse.ts → src/engine/exchange.ts (wire may not import engine)');
    expect(wrongWay([{ from: 'src/passthrough/cases.ts', to: 'src/reference/server.ts' }], []).wrong).toEqual([
      'src/passthrough/cases.ts → src/reference/server.ts (tools may not import another tools folder)',
    ]);
    expect(cyclesOf(['a', 'b', 'c'], [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }])).toEqual([['a', 'b', 'c', 'a']]);
  });
});
