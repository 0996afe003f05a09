import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream, type Upstream } from '../../src/passthrough/upstream.js';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer } from '../../src/reference/server.js';
import type { ProbeResult, Report } from '../../src/results/model.js';
import { cliCommand, interruptCli, runCli } from '../helpers/cli.js';
import { holdingServer } from '../helpers/holding.js';
import { startPortkey, type Gateway } from '../helpers/portkey.js';
import { startGateway, type GatewayMode } from '../helpers/rebuilding-gateway.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/tmp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The key the client gives the gateway: Portkey forwards it to its provider, here chatprobe upstream.
const KEY = 'sk-passthru-Vd82Lq0Zr5';

const UPSTREAM_URL = /channel base URL: (http:\/\/[^\s]+)\/v1/;

/** `chatprobe upstream` as a user starts it; resolves with its address once it has printed it. */
async function startUpstreamCli(): Promise<ServerProcess & { url: string }> {
  const server = await startServerProcess(
    ...cliCommand(['upstream', '--port', '0', '--models', 'chatprobe-upstream']),
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } },
    (out) => UPSTREAM_URL.test(out),
    'chatprobe upstream',
  );
  return { ...server, url: UPSTREAM_URL.exec(server.output())![1]! };
}

describe('chatprobe passthrough through the Portkey gateway (@portkey-ai/gateway 1.15.2)', () => {
  let gateway: Gateway;
  let upstream: ServerProcess & { url: string };
  let out: string;
  let run: Awaited<ReturnType<typeof runCli>>;
  let report: Report;
  const cell = (id: string): ProbeResult => report.results.find((r) => r.probe === `passthrough.${id}`)!;

  beforeAll(async () => {
    [gateway, upstream] = await Promise.all([startPortkey(), startUpstreamCli()]);
    out = await tempDir();
    // Portkey routes by header: the provider, and the upstream as its custom host.
    run = await runCli(
      ['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'chatprobe-upstream', '--header', 'x-portkey-provider: openai', '--header', `x-portkey-custom-host: ${upstream.url}/v1`, '--out', out],
      { OPENAI_API_KEY: KEY },
    );
    report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  });
  afterAll(async () => {
    await upstream?.stop();
    await gateway?.close();
  });

  it('runs every case and exits 0 (findings, no failure)', () => {
    expect(run.code, run.stderr).toBe(0);
    // Portkey's route headers are addresses and names, not secrets: nothing of them is redacted.
    expect(report.target.baseUrl).toBe(gateway.url);
    expect(run.stderr).not.toMatch(/REDACTED|too short/);
    expect(report.probes.every((p) => p.area === 'passthrough')).toBe(true);
    expect(report.results).toHaveLength(report.probes.length);
    expect(report.results.filter((r) => r.verdict === 'inconclusive' || r.verdict === 'error')).toEqual([]);
  });

  it('sees the values Portkey changes on the way: max_tokens -5 arrives as 0, temperature 5 as 2, top_p 2 as 1', () => {
    expect(cell('out_of_range_max_tokens')).toMatchObject({ verdict: 'warn', observed: 'max_tokens changed on the way: sent -5, arrived 0' });
    expect(cell('out_of_range_temperature')).toMatchObject({ verdict: 'warn', observed: 'temperature changed on the way: sent 5, arrived 2' });
    expect(cell('out_of_range_top_p')).toMatchObject({ verdict: 'warn', observed: 'top_p changed on the way: sent 2, arrived 1' });
    // Valid values and every parameter chatprobe probes pass through as sent.
    // Top_p 0 and 1, presence_penalty at -2 and 2 and a tool's strict too (its openai provider's range is -2 … 2).
    for (const id of ['max_tokens', 'max_completion_tokens', 'temperature', 'seed', 'stop', 'logprobs', 'response_format_json_schema', 'tools', 'user', 'stream', 'top_p_0', 'top_p_1', 'presence_penalty_min', 'presence_penalty_max', 'tools_strict']) {
      expect(cell(id).verdict, id).toBe('pass');
    }
  });

  it('sees the unknown top-level field dropped and the developer role kept', () => {
    expect(cell('unknown_field')).toMatchObject({ verdict: 'warn', observed: 'chatprobe_extension was dropped: the upstream recorded the request without it' });
    expect(cell('role_developer')).toMatchObject({ verdict: 'pass', observed: 'forwarded unchanged: messages' });
    expect(cell('model').verdict).toBe('pass');
  });

  it('sees upstream error bodies rewrapped, their statuses kept', () => {
    const openai = cell('response_error_openai');
    expect(openai.verdict).toBe('warn');
    expect(openai.observed).toContain('error.message: "chatprobe upstream refuses this request" → "openai error: chatprobe upstream refuses this request"');
    expect(openai.observed).toContain('provider: added "openai"');
    expect(openai.findings.map((f) => f.code)).not.toContain('status_changed');
    expect(cell('response_error_string').observed).toContain('"openai error: undefined"');
    expect(cell('response_error_html').observed).toMatch(/the client got \{"html-message":/);
    expect(cell('response_rate_limited').findings.map((f) => f.code)).toEqual(['reshaped']);
    // Portkey retries neither a 400 nor a 500 unless its config asks (its own `retry`): each reached the upstream once.
    for (const id of ['retry_4xx', 'retry_5xx']) {
      expect(cell(id).findings.map((f) => f.code), id).toEqual(['reshaped', 'not_retried']);
      expect(cell(id).findings[1]!.message).toMatch(/^the gateway did not retry the upstream's HTTP [45]00 \(the upstream received the request once, chatprobe sent it once\)$/);
    }
  });

  it('sees answers and streams pass back unchanged and unbuffered: every piece once and in order, usage in a chunk of its own, none unasked, text/event-stream kept', () => {
    for (const id of [
      'response_extra_fields', 'response_logprobs', 'response_reasoning', 'response_tool_calls', 'response_usage', 'response_finish_reason', 'response_system_fingerprint', 'response_n', 'response_empty_content',
      'stream_frames', 'stream_usage', 'stream_timing', 'stream_usage_unasked', 'stream_content_type',
    ]) {
      expect(cell(id).verdict, `${id}: ${cell(id).observed}`).toBe('pass');
    }
  });

  it('gates on a baseline: written from one run, the next against it exits 0 with every cell as expected', async () => {
    const dir = await tempDir();
    const baseline = join(dir, 'pt.baseline.json');
    const args = ['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'chatprobe-upstream', '--header', 'x-portkey-provider: openai', '--header', `x-portkey-custom-host: ${upstream.url}/v1`, '--quiet', '--baseline', baseline];
    const write = await runCli([...args, '--out', join(dir, 'a'), '--update-baseline'], { OPENAI_API_KEY: KEY });
    expect(write.code, write.stderr).toBe(0);
    const stored = JSON.parse(await readFile(baseline, 'utf8')) as { cells: Record<string, Record<string, string>> };
    expect(stored.cells['chatprobe-upstream']!['passthrough.out_of_range_temperature']).toBe('warn');
    const again = await runCli([...args, '--out', join(dir, 'b')], { OPENAI_API_KEY: KEY });
    expect(again.code, again.stderr).toBe(0);
    const judged = JSON.parse(await readFile(join(dir, 'b', 'report.json'), 'utf8')) as Report;
    expect(judged.results.every((r) => r.comparison === 'expected')).toBe(true);
  });

  it('runs several model names apart (each its own run id), and refuses an unknown case naming them all', async () => {
    const dir = await tempDir();
    const route = ['--header', 'x-portkey-provider: openai', '--header', `x-portkey-custom-host: ${upstream.url}/v1`];
    const two = await runCli(
      ['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'chatprobe-upstream', 'second-name', '--cases', 'model,passthrough.max_tokens,response_usage,stream_usage,response_error_fastapi', ...route, '--out', dir, '--quiet'],
      { OPENAI_API_KEY: KEY },
    );
    expect(two.code, two.stderr).toBe(0);
    const r = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    expect(r.results.map((x) => `${x.model} ${x.probe} ${x.verdict}`)).toEqual(
      ['chatprobe-upstream', 'second-name'].flatMap((m) => ['model', 'max_tokens', 'response_usage', 'response_error_fastapi', 'stream_usage'].map((c) => `${m} passthrough.${c} pass`)),
    );
    const typo = await runCli(['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'm', '--cases', 'max_tokens,temprature', '--out', dir], { OPENAI_API_KEY: KEY });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown passthrough case(s): temprature');
    expect(typo.stderr).toContain('the cases: model, defaults, extra_header, max_tokens');
    // The channel base URL the upstream prints, given as --upstream: told to drop the /v1.
    const channel = await runCli(['passthrough', '--base-url', gateway.url, '--upstream', `${upstream.url}/v1`, '--models', 'm', '--out', dir], { OPENAI_API_KEY: KEY });
    expect(channel.code).toBe(2);
    expect(channel.stderr).toContain(`hint: pass --upstream without /v1 (${upstream.url})`);
  });

  it('paces its requests through the gateway under --rpm, as an audit does', async () => {
    const dir = await tempDir();
    const route = ['--header', 'x-portkey-provider: openai', '--header', `x-portkey-custom-host: ${upstream.url}/v1`];
    const paced = await runCli(
      ['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'chatprobe-upstream', '--cases', 'model,max_tokens,temperature,seed', '--rpm', '600', ...route, '--out', dir, '--quiet'],
      { OPENAI_API_KEY: KEY },
    );
    expect(paced.code, paced.stderr).toBe(0);
    const sent = (await readFile(join(dir, 'trace.jsonl'), 'utf8')).trim().split('\n').map((l) => Date.parse((JSON.parse(l) as { at: string }).at)).sort((a, b) => a - b);
    expect(sent).toHaveLength(4);
    // 600 a minute is one every 100 ms; a timer may fire a few ms early against the wall clock the record reads.
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(90);
  });

  it('writes every report, the key in none of them', async () => {
    const files = (await readdir(out)).sort();
    expect(files).toEqual(['exchanges.har', 'junit.xml', 'matrix.md', 'report.html', 'report.json', 'trace.jsonl']);
    for (const f of files) expect((await readFile(join(out, f), 'utf8')).includes('Vd82Lq0Zr5'), f).toBe(false);
    expect(run.stdout + run.stderr).not.toContain('Vd82Lq0Zr5');
    expect(await readFile(join(out, 'matrix.md'), 'utf8')).toContain('`passthrough.out_of_range_temperature`');
  });
});

describe('chatprobe passthrough on a model the gateway does not route to the upstream', () => {
  it('stops after the first request (exit 2) and says what to fix, instead of failing every case', async () => {
    // The reference server stands for a gateway whose model name goes to another channel: it answers 200
    // itself, and the upstream receives nothing.
    const [gateway, upstream] = await Promise.all([startReferenceServer({ profile: loadProfile('default') }), startUpstream({ models: ['chatprobe-upstream'] })]);
    try {
      const run = await runCli(['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'ref-standard', '--out', await tempDir()], { OPENAI_API_KEY: KEY });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('chatprobe: the gateway answered model ref-standard (HTTP 200) but chatprobe upstream received nothing: another channel, a cache or a fallback serves that name');
      expect(run.stderr).toContain(`hint: point a channel for the model name ref-standard at chatprobe upstream (${upstream.url})`);
      expect(gateway.received.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(1);
      expect(upstream.records).toEqual([]);
    } finally {
      await Promise.all([gateway.close(), upstream.close()]);
    }
  });
});

describe('chatprobe passthrough interrupted', () => {
  it('Ctrl-C while the gateway holds the first request writes the partial report (exit 130), not a gateway that never answered', async () => {
    const upstream = await startUpstream();
    // A gateway that holds every request.
    const gateway = await holdingServer();
    try {
      const out = await tempDir();
      const run = await interruptCli(['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'm', '--out', out], { OPENAI_API_KEY: KEY }, gateway.asked);
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).not.toContain('no answer from the gateway');
      const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
      expect(report.interrupted).toBe(true);
      expect(report.results.every((r) => r.cause === 'interrupted')).toBe(true);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});

describe('chatprobe passthrough through imitations of a rebuilding gateway (test/helpers/rebuilding-gateway.ts)', () => {
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream({ models: ['chatprobe-upstream'] });
  });
  afterAll(() => upstream?.close());

  /** Every case (or `cases`) through a gateway in `mode` to chatprobe upstream; the run and its report. */
  async function through(mode: GatewayMode, cases?: string[]) {
    const gateway = await startGateway(upstream.url, mode);
    try {
      const out = await tempDir();
      const run = await runCli(
        ['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'chatprobe-upstream', '--out', out, '--quiet', ...(cases ? ['--cases', cases.join(',')] : [])],
        { OPENAI_API_KEY: KEY },
      );
      const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
      const cell = (id: string): ProbeResult => report.results.find((r) => r.probe === `passthrough.${id}`)!;
      return { run, report, cell };
    } finally {
      await gateway.close();
    }
  }

  /** The cases of what a rebuilding gateway changes, and the stream cases whose claims now judge what the client assembles. */
  const NEW = ['stream_frames', 'stream_usage', 'stream_usage_unasked', 'stream_content_type', 'response_system_fingerprint', 'tools_strict', 'response_n', 'response_empty_content', 'top_p_0', 'top_p_1', 'presence_penalty_min', 'presence_penalty_max', 'retry_4xx', 'retry_5xx'];

  it('the control: a gateway that forwards bytes as they come gets no finding, in any case (exit 0)', async () => {
    const { run, report, cell } = await through('faithful');
    expect(run.code, run.stderr).toBe(0);
    for (const id of NEW) expect(cell(id), id).toBeDefined();
    // stream_timing is left out: this imitation runs in the test's own process, whose event loop a loaded
    // machine may hold up long enough to gather the upstream's chunks into a burst that is no gateway's.
    const wrong = report.results.filter((r) => r.probe !== 'passthrough.stream_timing' && r.verdict !== 'pass');
    expect(wrong.map((r) => `${r.probe} ${r.verdict}: ${r.observed}`)).toEqual([]);
    expect(cell('retry_5xx').observed).toMatch(/^the gateway did not retry the upstream's HTTP 500 \(the upstream received the request once, chatprobe sent it once\)/);
    expect(cell('stream_content_type').observed).toBe('Content-Type: text/event-stream received as the upstream sent it');
  });

  it('the control for streams: ids, nulls and key order rewritten are said as rewrites no client sees, and every stream case passes', async () => {
    const { run, cell } = await through('tidy', ['model', 'stream_frames', 'stream_usage', 'stream_usage_unasked', 'stream_content_type']);
    expect(run.code, run.stderr).toBe(0);
    for (const id of ['stream_frames', 'stream_usage', 'stream_usage_unasked', 'stream_content_type']) expect(cell(id).verdict, `${id}: ${cell(id).observed}`).toBe('pass');
    expect(cell('stream_frames').observed).toBe(
      '9 events and [DONE] received as sent, but for rewrites no client sees (ids rewritten (every event); nulls added or dropped: system_fingerprint (every event); keys reordered (every event))',
    );
  });

  it('the rebuilding gateway: the report names every change it makes (exit 1)', async () => {
    const { run, report, cell } = await through('rebuilding');
    expect(run.code, run.stderr).toBe(1);
    // Every cell decided: nothing it does leaves chatprobe unable to judge, nor is any a harness error.
    expect(report.results.filter((r) => r.probe !== 'passthrough.stream_timing' && (r.verdict === 'error' || r.verdict === 'inconclusive')).map((r) => `${r.probe}: ${r.observed}`)).toEqual([]);
    const frames = cell('stream_frames');
    expect(frames.verdict).toBe('fail');
    expect(frames.observed).toContain('content: the client assembles "one two two three five four six six", the upstream sent "one two three four five six"');
    expect(frames.observed).toContain('finish_reason "stop" came twice, the upstream sent it once');
    expect(frames.observed).toContain('frame by frame: content " four" arrived out of order: after content " five" (the upstream sent it after content " three"); content " two" arrived twice, the upstream sent it once; content " six" arrived twice');
    expect(frames.findings.find((f) => f.code === 'trivial')?.message).toContain('ids rewritten');

    const usage = cell('stream_usage');
    expect(usage.verdict).toBe('fail');
    expect(usage.observed).toContain('the usage arrived inside a chunk that repeats content " six" and finish_reason "stop" (its choices not empty), not in a chunk of its own with choices: []');
    expect(usage.observed).toContain('the last usage a client sees is {"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}, the upstream reported {"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}');
    expect(usage.findings.find((f) => f.code === 'usage_added')?.message).toMatch(/other event\(s\) carry usage the upstream never sent \(\{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0\}\): a client that keeps the last usage it sees may read 0$/);

    expect(cell('stream_usage_unasked').findings.map((f) => f.code)).toEqual(expect.arrayContaining(['injected', 'usage_unasked']));
    expect(cell('stream_usage_unasked').findings.find((f) => f.code === 'injected')?.message).toBe('the gateway added stream_options {"include_usage":true} to a stream that did not ask for usage');
    expect(cell('stream_content_type')).toMatchObject({ verdict: 'fail' });
    expect(cell('stream_content_type').findings.map((f) => f.code)).toContain('content_type_dropped');

    expect(cell('response_system_fingerprint')).toMatchObject({ verdict: 'warn', observed: 'system_fingerprint was dropped: the upstream sent it, the client did not receive it' });
    expect(cell('tools_strict')).toMatchObject({ verdict: 'fail', observed: 'tools[0].function.strict was dropped: the upstream recorded the request without it' });
    expect(cell('response_n')).toMatchObject({ verdict: 'fail', observed: 'the upstream answered 2 choices (n: 2), the client received 1' });
    expect(cell('response_empty_content')).toMatchObject({ verdict: 'warn', observed: 'choices[0].message.content changed on the way back: the upstream sent "", the client got null' });
    expect(cell('top_p_0')).toMatchObject({ verdict: 'fail', observed: 'top_p was dropped: the upstream recorded the request without it' });
    expect(cell('top_p_1')).toMatchObject({ verdict: 'fail', observed: 'top_p was dropped: the upstream recorded the request without it' });
    expect(cell('presence_penalty_min')).toMatchObject({ verdict: 'fail', observed: 'presence_penalty changed on the way: sent -2, arrived 0' });
    expect(cell('presence_penalty_max')).toMatchObject({ verdict: 'fail', observed: 'presence_penalty changed on the way: sent 2, arrived 1' });
    expect(cell('retry_4xx')).toMatchObject({
      verdict: 'warn',
      observed: "the gateway retried the upstream's HTTP 400 twice (the upstream received the request 3 times, chatprobe sent it once): a refusal does not change on a retry, so each one costs a request for nothing",
    });
    expect(cell('retry_5xx')).toMatchObject({ verdict: 'pass' });
    expect(cell('retry_5xx').observed).toMatch(/^the gateway retried the upstream's HTTP 500 twice \(the upstream received the request 3 times, chatprobe sent it once\)/);
    // The other error answers it retried say so too; the values it leaves alone still pass.
    expect(cell('response_error_openai').findings.map((f) => f.code)).toContain('sent_again');
    for (const id of ['presence_penalty', 'top_p', 'tools', 'n', 'response_usage', 'response_tool_calls']) expect(cell(id).verdict, `${id}: ${cell(id).observed}`).toBe('pass');
  });
});
