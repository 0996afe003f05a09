import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { Boundary } from '../../src/boundary/boundary.js';
import type { ProbeResult, Report } from '../../src/results/model.js';
import { curlOf, renderRepro, reproLine, shellQuote, type HarRequestView } from '../../src/report/repro.js';
import { readCell } from '../../src/report/read.js';
import { EVERY_PROBE } from '../../src/results/view.js';
import { writeHtml } from '../../src/report/writers/html.js';
import { codeSpan, renderMatrix } from '../../src/report/writers/markdown.js';
import { pasteIntoBash } from '../helpers/paste.js';
import { sampleReport } from '../helpers/report.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Model ids a hostile server lists, each trying another way out of a shell word or a Markdown code span:
 * every one names a marker file that appears if a command it smuggles runs.
 */
const HOSTILE_IDS = [
  'sh-dollar $(touch pwned-dollar)',
  'sh-backtick `touch pwned-backtick`',
  "sh-quote' ; touch pwned-quote ; '",
  'sh-dquote" ; touch pwned-dquote ; "',
  'sh-newline\ntouch pwned-newline',
  'sh-cr\rtouch pwned-cr',
  'sh-ls\u2028touch pwned-ls\u2029touch pwned-ps',
  'sh-nel\u0085touch pwned-nel\u000btouch pwned-vt\u000ctouch pwned-ff',
  'sh-tab\ttouch pwned-tab',
  'sh-ops ; touch pwned-semi | touch pwned-pipe & touch pwned-amp && touch pwned-and',
  'md *bold* _em_ [link](http://127.0.0.1:9/x) <b>x</b> \\ # ! | ~~s~~',
  '(endpoint)',
  '\\(endpoint\\)',
  '``` fence `` tick ` ``',
  '`touch pwned-leading-tick`',
  'bang !! !$ $HOME ${PATH} \\x27 \\',
  'bidi \u202e)kcit-denwp hcuot($',
  '-n leading dash',
] as const;

/** Server text with commands after line breaks: an error message, an observed text, a finding. */
const HOSTILE_TEXT = 'bad request\n$(touch pwned-text-lf)\r$(touch pwned-text-cr)\u2028`touch pwned-text-ls`\u0085; touch pwned-text-nel';

const URL_OF = (i: number) => `http://127.0.0.1:9/v1/chat/completions?i=${i}&x=$(touch pwned-url)`;

/** A raw report (as the engine gives it) of the hostile ids: the first rejected with evidence, one row not probed. */
function hostileReport(): { report: Report; entries: Map<string, HarRequestView> } {
  const base = sampleReport();
  const entries = new Map<string, HarRequestView>();
  const results: ProbeResult[] = [];
  const models: Report['models'] = [];
  HOSTILE_IDS.forEach((id, i) => {
    const callId = `c${i}`;
    const body = JSON.stringify({ model: id, max_tokens: 5, note: `it's $(touch pwned-body) \u2028` });
    entries.set(callId, {
      _callId: callId,
      _probe: `parameters.max_tokens\n$(touch pwned-har-probe)`,
      _error: HOSTILE_TEXT,
      _cuts: [HOSTILE_TEXT],
      request: { method: 'POST', url: URL_OF(i), headers: [{ name: 'authorization', value: 'Bearer $OPENAI_API_KEY' }, { name: 'content-type', value: 'application/json' }], postData: { text: body } },
      response: { status: 400 },
    });
    if (i === HOSTILE_IDS.length - 1) {
      // Its smoke call failed: one line for the whole row, under EVERY_PROBE.
      models.push({ id, listed: true, cause: 'upstream', advice: HOSTILE_TEXT, notRun: { verdict: 'error', outcome: 'errored', cause: 'upstream', observed: HOSTILE_TEXT, evidence: [callId], status: 400 } });
      return;
    }
    // The endpoint's row has results and no model entry.
    if (id !== '(endpoint)') models.push({ id, listed: true });
    results.push({
      model: id,
      probe: 'parameters.max_tokens',
      kind: 'capability',
      verdict: 'rejected',
      outcome: 'failed',
      observed: `expected a cut answer, got HTTP 400: ${HOSTILE_TEXT}`,
      message: HOSTILE_TEXT,
      status: 400,
      evidence: [callId],
      findings: [{ severity: 'fail', code: 'rejected\n$(touch pwned-code)', message: HOSTILE_TEXT }],
      durationMs: 3,
    });
  });
  const probes = base.probes.map((p) => (p.id === 'parameters.max_tokens' ? { ...p, requirement: `limits ${HOSTILE_TEXT}` } : p));
  return { report: { ...base, models, probes, results }, entries };
}

/** The report as the writers get it: through the output boundary. */
const cleaned = () => {
  const { report, entries } = hostileReport();
  return { report: new Boundary().report(report), entries };
};

const expectHarmless = (run: Awaited<ReturnType<typeof pasteIntoBash>>, only: string) => {
  expect(run.leftovers).toEqual([]);
  for (const c of run.commands) expect(c.startsWith(`${only} `), c).toBe(true);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.calls.map((c) => c.name)).toEqual(run.calls.map(() => only));
};

/** The text of a code span as a Markdown reader shows it (micromark renders it HTML-escaped). */
const decode = (html: string) => html.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('shellQuote', () => {
  it('gives every text back exactly from bash, one line, whatever it holds', async () => {
    const dir = await tempDir();
    const texts = [...HOSTILE_IDS, HOSTILE_TEXT, '', "'", '\\', 'a\u0000b'.replace('\u0000', '\u0001'), 'emoji 🤖 \ud83e', 'soft\u00adhyphen'];
    const quoted = texts.map(shellQuote);
    for (const q of quoted) expect(q).not.toMatch(/[\n\r\t\u000b\u000c\u0085\u2028\u2029]/);
    const run = await pasteIntoBash(`curl ${quoted.join(' ')}\n`, dir);
    expectHarmless(run, 'curl');
    // A lone surrogate cannot be written as UTF-8: it arrives as U+FFFD, as Node would write it anyway.
    expect(run.calls[0]!.args).toEqual(texts.map((t) => t.replace(/\ud83e$/, '\ufffd')));
  });
});

describe('what is meant to be pasted, from a hostile report', () => {
  it('repro: the whole output pasted runs only its curl commands, each sending the recorded URL and body', async () => {
    const dir = await tempDir();
    const { report, entries } = cleaned();
    const cells = [
      ...report.results.map((r) => [r.model, r.probe] as const),
      ...report.models.filter((m) => m.notRun).map((m) => [m.id, EVERY_PROBE] as const),
    ];
    expect(cells).toHaveLength(HOSTILE_IDS.length);
    // Found as `chatprobe repro` finds it: in the report.json written.
    const reportPath = join(dir, 'report.json');
    await writeFile(reportPath, JSON.stringify(report));
    for (const [model, probe] of cells) {
      const cell = (await readCell(reportPath, model, probe)).cell!;
      const text = renderRepro(report, cell, entries);
      const run = await pasteIntoBash(text, dir);
      expectHarmless(run, 'curl');
      // Every line is a command, the continuation of one, or a comment, whose text cannot end the line.
      for (const line of text.split('\n')) expect(line, model).toMatch(/^(# |curl |  -H |  --data-raw |$)/);
      const entry = entries.get(cell.evidence[0]!)!;
      expect(run.calls).toHaveLength(1);
      const args = run.calls[0]!.args;
      expect(args.slice(0, 4)).toEqual(['-sS', '-X', 'POST', entry.request.url]);
      expect(args.slice(-2)).toEqual(['--data-raw', entry.request.postData!.text]);
      expect(args).toContain('Authorization: Bearer sk-stub');
    }
  });

  it('matrix.md: each reproduce line, copied raw or from the rendered page, runs `chatprobe repro . <id> <probe>` and nothing else', async () => {
    const dir = await tempDir();
    const { report } = cleaned();
    const md = renderMatrix(report);
    const prefix = '  - reproduce, in this folder: ';
    const lines = md.split('\n').filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
    const ids = report.results.map((r) => r.model);
    expect(lines).toHaveLength(ids.length);
    const raw: string[] = [];
    for (const [i, line] of lines.entries()) {
      // The command as copied from the raw file: the code span's text, fences and padding left behind.
      const span = /^(`+)( ?)(.*)\2\1$/.exec(line);
      const command = span ? span[3]! : line;
      const run = await pasteIntoBash(`${command}\n`, dir);
      expectHarmless(run, 'chatprobe');
      expect(run.calls.map((c) => c.args)).toEqual([['repro', '.', ids[i], 'parameters.max_tokens']]);
      expect(span, line).not.toBeNull();
      expect(command).toBe(reproLine(ids[i]!, 'parameters.max_tokens'));
      raw.push(command);
    }
    // The page GitHub or an editor renders shows the same command.
    const rendered = [...micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()] }).matchAll(/<li>reproduce, in this folder: <code>(.*?)<\/code><\/li>/g)].map((m) => decode(m[1]!));
    expect(rendered).toEqual(raw);
  });

  it('report.html: each cell’s reproduce line, a row not probed’s included, runs `chatprobe repro . <id> <probe>`', async () => {
    const dir = await tempDir();
    const { report } = cleaned();
    const harPath = join(dir, 'exchanges.har');
    await writeFile(harPath, '{"log":{"entries":[\n]}}\n');
    await writeHtml(join(dir, 'report.html'), report, harPath, (s) => s);
    const page = await readFile(join(dir, 'report.html'), 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page)![1]!) as {
      results: { model: string; probe: string; repro?: string }[];
      models: { id: string; notRun?: { repro?: string } }[];
    };
    const lines = [
      ...data.results.map((r) => ({ repro: r.repro, args: ['repro', '.', r.model, r.probe] })),
      ...data.models.filter((m) => m.notRun).map((m) => ({ repro: m.notRun!.repro, args: ['repro', '.', m.id, EVERY_PROBE] })),
    ];
    expect(lines).toHaveLength(HOSTILE_IDS.length);
    for (const { repro, args } of lines) {
      expect(repro).toBeDefined();
      const run = await pasteIntoBash(`${repro}\n`, dir);
      expectHarmless(run, 'chatprobe');
      expect(run.calls.map((c) => c.args)).toEqual([args]);
    }
  });

  it('codeSpan: a fence longer than any backtick run inside, padded when the text ends in one', () => {
    expect(codeSpan("chatprobe repro . 'a' p")).toBe("`chatprobe repro . 'a' p`");
    expect(codeSpan('a ``` b ` c')).toBe('````a ``` b ` c````');
    expect(codeSpan('`a`')).toBe('`` `a` ``');
    const html = micromark(`- x: ${codeSpan('`a` ``` b')}`, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
    expect(html).toContain('<code>`a` ``` b</code>');
  });

  it('curlOf quotes the method too: a recorded request is data, not a command', () => {
    const cmd = curlOf({ _callId: 'c1', request: { method: 'GET;touch pwned', url: 'http://h/', headers: [] }, response: { status: 0 } });
    expect(cmd).toBe("curl -sS -X 'GET;touch pwned' 'http://h/'");
  });
});
