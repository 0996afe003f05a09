import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Diagnostics that point the right way: the key's own whitespace, the wrong scheme either way,
 * and a certificate Node does not trust, each said as what to change, before a cell is run.
 */
const KEY = 'sk-diag-Qw7xZp3Lk9Tr';

let plain: ReferenceServer;
let tls: HttpsServer;
let tlsPort: number;
let caFile: string;

beforeAll(async () => {
  plain = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  // A self-signed certificate for 127.0.0.1, made for this run (openssl ships with the machine).
  const dir = await tempDir();
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=chatprobe-test', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  caFile = cert;
  tls = createHttpsServer({ key: await readFile(key), cert: await readFile(cert) }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'tls-model', object: 'model', created: 1, owned_by: 'test' }] }));
  });
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  tlsPort = (tls.address() as AddressInfo).port;
});
afterAll(async () => {
  await plain.close();
  tls.closeAllConnections();
  await new Promise((r) => tls.close(r));
});

describe('diagnostics that point the right way', () => {
  it.each([
    ['a trailing line break', `${KEY}\n`, /\$OPENAI_API_KEY ends with a line break: the key is at fault/, /hint: strip it/],
    ['a leading space', ` ${KEY}`, /\$OPENAI_API_KEY starts with whitespace/, /hint: strip it/],
    ['the word Bearer', `Bearer ${KEY}`, /starts with the word "Bearer": chatprobe adds it/, /hint: drop the word/],
  ])('names a key with %s as the key’s fault, sends nothing, and never shows it', async (_what, key, message, hint) => {
    const before = plain.received.length;
    const run = await runCli(['--base-url', plain.url, '--out', await tempDir()], { OPENAI_API_KEY: key });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(hint);
    expect(plain.received.length).toBe(before);
    expect(run.stdout + run.stderr).not.toContain(KEY.slice(3, 15));
  });

  it('says to use http:// when https:// meets a plain-HTTP server', async () => {
    const run = await runCli(['--base-url', plain.url.replace('http:', 'https:'), '--dry-run'], { OPENAI_API_KEY: KEY });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the server speaks plain HTTP on this port: use http:\/\/ in the base URL \(http:\/\/127\.0\.0\.1:\d+\/v1\)/);
  });

  it('says https:// may be what a TLS port wants when http:// is closed on', async () => {
    const run = await runCli(['--base-url', `http://127.0.0.1:${tlsPort}/v1`, '--dry-run'], { OPENAI_API_KEY: KEY });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/if the server expects HTTPS on this port, use https:\/\/ \(https:\/\/127\.0\.0\.1:\d+\/v1\)/);
  });

  it('names NODE_EXTRA_CA_CERTS for a certificate Node does not trust, and that advice works', async () => {
    const base = `https://127.0.0.1:${tlsPort}/v1`;
    const refused = await runCli(['--base-url', base, '--dry-run'], { OPENAI_API_KEY: KEY });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/certificate is not trusted by Node: .*NODE_EXTRA_CA_CERTS/);
    const trusted = await runCli(['--base-url', base, '--dry-run', '--no-billing'], { OPENAI_API_KEY: KEY, NODE_EXTRA_CA_CERTS: caFile });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('tls-model');
  });
});
