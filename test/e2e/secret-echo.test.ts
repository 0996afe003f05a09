import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRAGMENT_LENGTH } from '../../src/boundary/secrets.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A server that echoes the caller's secrets everywhere a server can: in model ids and /models entries, in
 * answers (plain and as JSON \u escapes), split over stream deltas, in SSE comments and stray lines, in
 * response headers and in error messages; each model N puts N characters of context (1 to 200) before the
 * secret, so every cut chatprobe makes (40, 120, 300, 500 characters …) falls at every position of it.
 */
const KEY = 'sk-proj-Q7vT2mX9pL4wR8nK3jH6bF1cZ5yD0aE'; // 41 characters
const HEADER_SECRET = 'hs-7Yw3Kq9ZpR2mVx8N';
const CONTEXTS = Array.from({ length: 200 }, (_, i) => i + 1);

const pad = (n: number) => 'abcdefghij'.repeat(21).slice(0, n);
const modelId = (n: number) => `id-${n}-${pad(n)}${KEY}`;
const uEscaped = (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

function echoServer(): Promise<{ server: Server; url: string; authHeaders: Set<string | undefined> }> {
  const authHeaders = new Set<string | undefined>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      authHeaders.add(req.headers.authorization);
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const secrets = `${token} ${req.headers['x-api-key'] ?? ''}`;
      if (req.url === '/v1/models') {
        const data = CONTEXTS.map((n) => ({ id: modelId(n), object: 'model', created: 0, owned_by: `${pad(n)}${token}`, note: { deep: [`${pad(n)}${secrets}`] } }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data }));
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // malformed-JSON probes land here
      }
      const n = Number(/^id-(\d+)-/.exec(String(body.model))?.[1] ?? 7);
      const echo = `${pad(n)}${secrets}`;
      const headers = { 'x-request-id': echo, 'x-ratelimit-remaining': echo, 'x-debug': echo };
      // An unknown model is served anyway (errors.unknown_model fails: a cell to annotate).
      if ('user' in body || !Array.isArray(body.messages)) {
        res.writeHead(400, { ...headers, 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `${echo} is not allowed`, type: 'invalid_request_error', param: 'user', code: echo } }));
        return;
      }
      if (body.stream === true) {
        res.writeHead(200, { ...headers, 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null = null) =>
          `data: ${JSON.stringify({ id: `c-${echo}`, object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        const third = Math.ceil(echo.length / 3);
        res.end(
          `: ${echo}\n${echo}\n\n` +
            chunk({ role: 'assistant', content: '' }) +
            chunk({ content: echo.slice(0, third) }) +
            chunk({ content: echo.slice(third, 2 * third) }) +
            chunk({ content: echo.slice(2 * third) }) +
            chunk({}, 'stop') +
            'data: [DONE]\n\n',
        );
        return;
      }
      // Odd contexts echo the secrets as JSON \u escapes, which only decoding reveals.
      const content = n % 2 === 1 ? uEscaped(echo) : JSON.stringify(echo).slice(1, -1);
      res.writeHead(200, { ...headers, 'content-type': 'application/json' });
      res.end(
        `{"id":"c-${n}","object":"chat.completion","created":0,"model":${JSON.stringify(body.model)},` +
          `"choices":[{"index":0,"message":{"role":"assistant","content":"${content}"},"finish_reason":"stop"}],` +
          `"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`,
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, authHeaders })),
  );
}

async function filesIn(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    // The run's record, decompressed: it is scanned as every other file is.
    const bytes = await readFile(join(e.parentPath, e.name));
    out[join(e.parentPath, e.name)] = (e.name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
  }
  return out;
}

/** Every run of FRAGMENT_LENGTH characters of `secret` found in `text`, in plain or escaped form. */
function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + FRAGMENT_LENGTH <= secret.length; i++) {
    const f = secret.slice(i, i + FRAGMENT_LENGTH);
    for (const form of [f, JSON.stringify(f).slice(1, -1), uEscaped(f)]) if (text.includes(form)) found.push(form);
  }
  return found;
}

describe('a server that echoes the secrets everywhere, at every context length from 1 to 200', () => {
  let echo: Awaited<ReturnType<typeof echoServer>>;
  beforeAll(async () => {
    echo = await echoServer();
  });
  afterAll(() => new Promise<void>((resolve) => echo.server.close(() => resolve())));

  it('finds them in no output: reports, trace, baseline, step summary, annotations, stdout, stderr', async () => {
    const dir = await tempDir();
    const run = await runCli(
      [
        '--base-url', echo.url,
        '--header', `X-Api-Key: ${HEADER_SECRET}`,
        '--probes', 'models.list,errors.unknown_model,chat.basic,chat.schema,streaming.basic,streaming.framing,parameters.user',
        '--concurrency', '8',
        '--out', join(dir, 'reports'),
        '--baseline', join(dir, 'baseline.json'),
        '--update-baseline',
      ],
      { OPENAI_API_KEY: KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'summary.md') },
    );
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const outputs: Record<string, string> = { ...(await filesIn(dir)), stdout: run.stdout, stderr: run.stderr };
    expect(Object.keys(outputs).map((k) => k.split('/').pop())).toEqual(
      expect.arrayContaining(['report.json', 'junit.xml', 'matrix.md', 'trace.jsonl', 'exchanges.har', 'report.html', 'record.jsonl.gz', 'baseline.json', 'summary.md', 'stdout', 'stderr']),
    );
    for (const [name, text] of Object.entries(outputs)) {
      expect(leaks(text, KEY), name).toEqual([]);
      expect(leaks(text, HEADER_SECRET), name).toEqual([]);
    }
    // The echoes were there to remove: every model row, its request ids and its rejection carry the marker.
    const report = JSON.parse(outputs[join(dir, 'reports', 'report.json')]!) as { models: { id: string }[]; results: { probe: string; verdict: string; message?: string }[] };
    expect(report.models.map((m) => m.id)).toEqual(CONTEXTS.map((n) => `id-${n}-${pad(n)}[REDACTED]`));
    const user = report.results.filter((r) => r.probe === 'parameters.user');
    expect(user).toHaveLength(200);
    for (const r of user) expect(r.verdict).toBe('rejected');
    // Sent only in the Authorization header, as a bearer token, or not at all (the auth probes).
    expect([...echo.authHeaders].filter((h) => h?.includes(KEY))).toEqual([`Bearer ${KEY}`]);
  }, 120_000);

  it('finds them in no annotation of failing cells either', async () => {
    const dir = await tempDir();
    const run = await runCli(
      ['--base-url', echo.url, '--probes', 'errors.unknown_model,parameters.user', '--models', 'id-1*,id-2*', '--out', dir],
      { OPENAI_API_KEY: KEY, GITHUB_ACTIONS: 'true' },
    );
    // The unknown model is answered 200: a failing cell, annotated on stdout.
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    expect(run.stdout).toMatch(/^::error title=/m);
    for (const text of [run.stdout, run.stderr, ...Object.values(await filesIn(dir))]) expect(leaks(text, KEY)).toEqual([]);
  }, 60_000);
});
