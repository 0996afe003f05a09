import { describe, expect, it } from 'vitest';
import { renderProbeList, type ProbeRow } from '../../src/cli/probes.js';
import { resolveCost } from '../../src/engine/probe.js';
import { gate } from '../../src/report/gate.js';
import { failuresFirst, modelTotals } from '../../src/report/summary.js';
import { painter, progressLine, renderConsole, TimeLeft, VERDICT_SYMBOL } from '../../src/report/writers/console.js';
import type { ProbeResult, Report, Verdict } from '../../src/results/model.js';
import { outcomeOf } from '../../src/results/outcome.js';
import { runModels, viewOf } from '../../src/results/view.js';
import { PROBES } from '../../suites/index.js';
import { gatewayIds, sampleReport } from '../helpers/report.js';

const plain = painter(false, {});

/**
 * A run of `n` models (ids as gateways list them, one of them 100 characters long) × every model probe,
 * verdicts spread by model and probe, gated against a baseline that expects honoured where the first two
 * models ignore; the fourth model not probed at all.
 */
function terminalRun(n: number): Report {
  const base = sampleReport();
  const ids = gatewayIds(n);
  if (n > 5) ids[5] = `vendor/${'very-long-model-name-'.repeat(4)}2026-01-01`.slice(0, 100);
  const probes = PROBES.filter((p) => p.scope !== 'target').map((p) => ({ id: p.id, area: p.area, kind: p.kind, scope: 'model' as const, requirement: p.requirement, cost: { requests: 1, maxTokens: 1 } }));
  const conformance: Verdict[] = ['pass', 'pass', 'warn', 'fail', 'pass', 'inconclusive', 'error'];
  const capability: Verdict[] = ['honoured', 'ignored', 'rejected', 'accepted', 'honoured', 'inconclusive'];
  const results = ids.flatMap((model, i) =>
    i === 3 ? [] : probes.map((p, k): ProbeResult => {
      const list = p.kind === 'capability' ? capability : conformance;
      const verdict = list[(i * 3 + k) % list.length]!;
      return { model, probe: p.id, kind: p.kind, verdict, outcome: outcomeOf(verdict, 'upstream').outcome, observed: `expected X, got ${verdict}`, evidence: [], findings: [], durationMs: 1, ...(verdict === 'error' ? { cause: 'upstream' as const } : {}) };
    }),
  );
  const models = ids.map((id, i) => (i === 3 ? { id, listed: true, cause: 'upstream' as const, advice: 'the upstream channel is down', notRun: { verdict: 'error' as const, outcome: 'failed' as const, cause: 'upstream' as const, observed: 'not run: the smoke call failed with HTTP 503', evidence: [] } } : { id, listed: true }));
  const cells = Object.fromEntries(ids.slice(0, 2).map((id) => [id, Object.fromEntries(results.filter((r) => r.model === id && r.verdict === 'ignored').map((r) => [r.probe, 'honoured' as const]))]));
  return gate({ ...base, models, probes, results, calls: results.length }, { schemaVersion: 1, cells }, { path: 'chatprobe.baseline.json', updated: false });
}

/** The table of models as printed: each number with the name beside it or on the lines below. */
function readTable(lines: string[]): { number: number; name: string; counts: string }[] {
  const head = lines.findIndex((l) => /^#\s+pass fail /.test(l));
  expect(head, 'the table of models').toBeGreaterThan(0);
  const at = lines[head]!.indexOf('model');
  const rows: { number: number; name: string; counts: string }[] = [];
  for (let i = head + 1; i < lines.length && lines[i] !== ''; i++) {
    const l = lines[i]!;
    const number = /^ *(\d+)  /.exec(l);
    if (number && !l.startsWith('    ')) rows.push({ number: Number(number[1]), name: l.slice(at), counts: l.slice(number[0].length, at).trim() });
    else rows.at(-1)!.name += l.slice(4);
  }
  return rows;
}

/** The turned matrix read back: each model's number and its symbols, probe after probe, every band joined. */
function readTurned(lines: string[]): Map<number, string> {
  const start = lines.findIndex((l) => l.startsWith('models down'));
  const end = lines.findIndex((l, i) => i > start && l.startsWith('probes:'));
  // After the lines saying how to read it, up to the probes' names.
  const section = lines.slice(lines.indexOf('', start), end).filter((l) => l !== '');
  // Header lines start past the names; a model's line starts with its number.
  const headers = section.filter((l) => /^ {4,}/.test(l));
  const offset = Math.min(...headers.map((l) => l.length - l.trimStart().length));
  const rows = new Map<number, string>();
  for (const l of section) {
    if (/^ {4,}/.test(l)) continue;
    const number = Number(/^ *(\d+) /.exec(l)![1]);
    rows.set(number, (rows.get(number) ?? '') + l.slice(offset).replace(/ /g, ''));
  }
  return rows;
}

/** The symbols a model's cells should show, probe after probe. */
const symbolsOf = (report: Report, id: string) => {
  const view = viewOf(report);
  return view.matrixProbes.map((p) => {
    const r = view.cell(id, p.id);
    return r ? VERDICT_SYMBOL[r.verdict] : '-';
  }).join('');
};

describe('the terminal at 80 and 120 columns, for 3, 20 and 200 models', () => {
  for (const n of [3, 20, 200]) {
    for (const columns of [80, 120]) {
      it(`${n} models in ${columns} columns: no line past the width, a table of the models with every name whole, each cell readable in the matrix`, () => {
        const report = terminalRun(n);
        const text = renderConsole(report, plain, columns);
        const lines = text.split('\n');
        // What the text says, its lines joined (a sentence may wrap).
        const said = text.replace(/\s+/g, ' ');
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
        expect(lines.filter((l) => l !== l.trimEnd())).toEqual([]);

        // The table: one line a model (a name too long for its line on the lines below), numbered, failures first.
        const table = readTable(lines);
        expect(table.map((r) => r.number)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
        expect(table.map((r) => r.name).sort()).toEqual(report.models.map((m) => m.id).sort());
        for (const m of report.models) if (m.id.length <= columns - 4) expect(lines.some((l) => l.endsWith(m.id)), m.id).toBe(true);
        const regressions = (id: string) => report.results.filter((r) => r.model === id && r.comparison === 'regression').length;
        expect(table.slice(0, 2).map((r) => r.name).sort()).toEqual(report.models.slice(0, 2).map((m) => m.id).sort());
        expect(regressions(table[0]!.name)).toBeGreaterThan(0);
        if (n > 3) expect(table.find((r) => r.name === report.models[3]!.id)!.counts).toBe('not probed: upstream');
        const failed = (id: string) => report.results.filter((r) => r.model === id && r.outcome === 'failed').length;
        const rest = table.slice(2).filter((r) => !r.counts.startsWith('not probed')).map((r) => failed(r.name));
        expect(rest).toEqual([...rest].sort((a, b) => b - a));
        // A row's counts: passed, failed, ignored, rejected, skipped, regressions (the run has no errored cell).
        const first = report.results.filter((r) => r.model === table[0]!.name);
        expect(lines.find((l) => /^#\s+pass/.test(l))).toMatch(/^# +pass fail ign rej skip reg  model$/);
        expect(table[0]!.counts.split(/ +/).map(Number)).toEqual([
          first.filter((r) => r.outcome === 'passed').length,
          first.filter((r) => r.outcome === 'failed').length,
          first.filter((r) => r.verdict === 'ignored').length,
          first.filter((r) => r.verdict === 'rejected').length,
          first.filter((r) => r.outcome === 'skipped').length,
          regressions(table[0]!.name),
        ]);

        // The matrix: every cell read back under its model's number, the models failures first.
        const byNumber = new Map(table.map((r) => [r.number, r.name]));
        const drawn = Math.min(n, 100);
        if (lines.some((l) => l.startsWith('models down'))) {
          const rows = readTurned(lines);
          expect([...rows.keys()]).toEqual(Array.from({ length: drawn }, (_, i) => i + 1));
          for (const [number, symbols] of rows) expect(symbols, byNumber.get(number)).toBe(symbolsOf(report, byNumber.get(number)!));
          // A name cut beside its row is said to be whole in the table.
          if (lines.some((l) => /^ *\d+ .*…/.test(l))) expect(said).toContain('a name cut here is whole there');
          expect(lines.find((l) => l.startsWith('probes: 1 '))).toBeDefined();
        } else {
          const head = lines.find((l) => /^probe +1 +2 /.test(l))!;
          const at = head.indexOf('1');
          const width = String(drawn).length + 1;
          for (let k = 1; k <= drawn; k++) {
            const symbols = viewOf(report).matrixProbes.map((p) => lines.find((l) => l.startsWith(`${p.id} `))![at + (k - 1) * width]).join('');
            expect(symbols, byNumber.get(k)).toBe(symbolsOf(report, byNumber.get(k)!));
          }
        }
        if (n > 100) expect(said).toContain(`the matrix shows the first 100 of ${n} models, failures first; the table of models below names every one`);
        expect(text).toContain('H honoured, A accepted, I ignored');
      });
    }
  }

  it('keeps the models as columns, in words and as listed, while their names fit, with no table of models', () => {
    const report = terminalRun(3);
    const text = renderConsole(report, plain, 200);
    expect(text).toMatch(/^probe +openai\/gpt-4o-mini-2024-07-18 +accounts\/fireworks/m);
    expect(text).not.toMatch(/^# +pass fail/m);
  });

  it('orders models failures first: regressions, then cells failed or errored, then skipped; alike as listed', () => {
    const base = sampleReport();
    const cell = (model: string, probe: string, verdict: Verdict, comparison?: ProbeResult['comparison']): ProbeResult => ({
      ...base.results[0]!, model, probe, verdict, outcome: verdict === 'fail' || comparison === 'regression' ? 'failed' : verdict === 'inconclusive' ? 'skipped' : 'passed', ...(comparison ? { comparison } : {}),
    });
    const report: Report = {
      ...base,
      models: ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, listed: true })),
      results: [
        cell('a', 'chat.basic', 'pass'), cell('a', 'parameters.max_tokens', 'pass'),
        cell('b', 'chat.basic', 'fail'), cell('b', 'parameters.max_tokens', 'pass'),
        cell('c', 'chat.basic', 'inconclusive'), cell('c', 'parameters.max_tokens', 'pass'),
        cell('d', 'chat.basic', 'pass'), cell('d', 'parameters.max_tokens', 'ignored', 'regression'),
        cell('e', 'chat.basic', 'fail'), cell('e', 'parameters.max_tokens', 'fail'),
      ],
    };
    const totals = modelTotals(report);
    expect(failuresFirst(runModels(report), totals).map((m) => m.id)).toEqual(['d', 'e', 'b', 'c', 'a']);
    expect(totals.get('d')).toMatchObject({ cells: 2, passed: 1, failed: 1, ignored: 1, regressions: 1, tones: { good: 1, notice: 1, bad: 0, muted: 0 } });
  });
});

describe('the live estimate of the time left', () => {
  /** Feeds a run's cells, each at its time (ms), and returns what the live line said at each. */
  const said = (times: number[], total = times.length) => {
    const left = new TimeLeft();
    return times.map((at, i) => ({ at, done: i + 1, text: left.text(i + 1, total, at) }));
  };

  it('says it is estimating until enough cells have come, then is near the truth, however long the run took to start', () => {
    // The run: 20 s of discovery and smoke calls before any cell, then 1,200 cells over 58 s; it
    // ended at 78 s. Counting from the start said "about 301 s left" at 26 s.
    const times = Array.from({ length: 1200 }, (_, i) => 20_000 + ((i + 1) * 58_000) / 1200);
    const lines = said(times);
    expect(lines[0]!.text).toBe('estimating the time left');
    // A twentieth of the run (60 cells) has to come first, and 5 s.
    expect(lines.filter((l) => l.at < 25_000).every((l) => l.text === 'estimating the time left')).toBe(true);
    for (const l of lines.filter((x) => x.text !== 'estimating the time left' && x.done < 1200)) {
      const truth = (78_000 - l.at) / 1000;
      const guess = /^about (\d+) s left$/.exec(l.text);
      expect(guess, l.text).not.toBeNull();
      // Within a second and a tenth of the truth.
      expect(Math.abs(Number(guess![1]) - truth), `${l.text} at ${l.at} ms`).toBeLessThanOrEqual(1 + truth / 10);
    }
    expect(lines.at(-1)!.text).toBe('');
  });

  it('follows a pace that changes, from the last 30 s once the run has gone on that long', () => {
    // 100 cells over the first 60 s, then 900 more in 30 s.
    const times = [...Array.from({ length: 100 }, (_, i) => ((i + 1) * 60_000) / 100), ...Array.from({ length: 900 }, (_, i) => 60_000 + ((i + 1) * 30_000) / 900)];
    const lines = said(times);
    // At 85 s, 150 cells are left at 30 a second (5 s): the last 30 s say 6, the pace since the first cell would say 15.
    const at85 = lines.find((l) => l.at >= 85_000)!;
    const guess = Number(/^about (\d+) s left$/.exec(at85.text)![1]);
    expect(guess).toBeGreaterThanOrEqual(5);
    expect(guess).toBeLessThanOrEqual(7);
  });

  it('says minutes past two of them, and starts over for another run', () => {
    const left = new TimeLeft();
    for (let i = 1; i <= 100; i++) left.text(i, 2_000, i * 100);
    // 1,899 cells left at 10 a second.
    expect(left.text(101, 2_000, 10_100)).toBe('about 3 min left');
    expect(left.text(1, 50, 20_000)).toBe('estimating the time left');
  });

  it('is part of the live line, and gone once every cell is done', () => {
    const r = sampleReport().results[0]!;
    const left = new TimeLeft();
    expect(progressLine(r, 1, 100, { elapsedMs: 4_000, inFlight: 7 }, left)).toBe(`4 s · 7 in flight · [1/100] · estimating the time left · ${r.model} ${r.probe}: ${r.verdict}`);
    for (let i = 2; i <= 25; i++) progressLine(r, i, 100, { elapsedMs: 4_000 + (i - 1) * 250, inFlight: 7 }, left);
    expect(progressLine(r, 26, 100, { elapsedMs: 10_250, inFlight: 7 }, left)).toBe(`10 s · 7 in flight · [26/100] · about 19 s left · ${r.model} ${r.probe}: ${r.verdict}`);
    expect(progressLine(r, 100, 100, { elapsedMs: 40_000, inFlight: 0 }, left)).not.toContain('left');
    // Calls waiting for a slot are not in flight: --concurrency 4 never shows more than 4 there.
    expect(progressLine(r, 25, 100, { elapsedMs: 10_000, inFlight: 4, queued: 18 }, new TimeLeft())).toContain('4 in flight, 18 queued · [25/100]');
  });
});

describe('chatprobe probes', () => {
  const rows: ProbeRow[] = PROBES.map((p) => ({
    id: p.id,
    kind: p.kind,
    scope: p.scope ?? 'model',
    tier: p.tier ?? 'default',
    requirement: p.requirement,
    cost: { requests: resolveCost(p.cost, 4).requests, shared: (p.cost.shared ?? []).map((s) => s.key) },
  }));

  it.each([80, 120])('fits %i columns: a header, every probe starting a line, each requirement whole across its lines', (columns) => {
    const text = renderProbeList(rows, columns);
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
    expect(lines.filter((l) => l !== l.trimEnd())).toEqual([]);
    expect(lines[0]).toMatch(/^probe:? +kind/);
    const joined = lines.map((l) => l.trim()).join(' ');
    for (const p of PROBES) {
      expect(lines.some((l) => l.startsWith(`${p.id} `) || l.startsWith(`${p.id}:`)), p.id).toBe(true);
      // The requirement's words in order, wrapped (a word longer than the room cut across lines).
      expect(joined.replace(/ /g, '')).toContain(p.requirement.replace(/ /g, ''));
    }
  });

  it('piped, prints a probe a line under a header, for grep', () => {
    const lines = renderProbeList(rows).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^probe +kind +scope +tier +cost +requirement$/);
    expect(lines).toHaveLength(PROBES.length + 1);
    for (const [i, p] of PROBES.entries()) expect(lines[i + 1]).toMatch(new RegExp(`^${p.id.replace(/\./g, '\\.')} +${p.kind} .*${p.requirement.slice(-20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });
});
