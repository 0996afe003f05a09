import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TransportFailure } from '../../src/http/failure.js';
import { transportAdvice } from '../../src/engine/discover.js';
import { unusableStream } from '../../suites/support/streams.js';
import { ROOT } from '../helpers/cli.js';
import { delta, streamed } from '../helpers/exchanges.js';

/** What is decided from a transport failure is decided from its kind: the message may say anything. */
const MISLEADING = 'BODY_TIMEOUT ECONNRESET UND_ERR_SOCKET wrong version number certificate other side closed';
const failure = (code: 'timeout' | 'network', kind: TransportFailure['kind']): TransportFailure => ({ code, kind, message: MISLEADING }) as TransportFailure;

describe('a stream that failed after its 200', () => {
  const begun = [delta({ role: 'assistant', content: 'O' })];
  it.each([
    ['stalled (no bytes within --timeout)', failure('timeout', 'body-stall')],
    ['ran past --timeout', failure('timeout', 'time-limit')],
    ['broke', failure('network', 'reset')],
  ])('says it %s, from the failure kind', (how, transport) => {
    const v = unusableStream(streamed(begun, { done: false, transport }), 'a finish_reason');
    expect(v).toMatchObject({ verdict: 'error', cause: transport.code });
    expect(v?.observed).toBe(`expected a finish_reason; the stream ${how} after 1 event(s)`);
  });
});

describe('GET /models with no answer: the advice follows the failure kind, never its message', () => {
  it('points https:// at a plain-HTTP port only for a TLS failure, and names the CA for a certificate', () => {
    expect(transportAdvice(failure('network', 'tls'), 'https://h:8080/v1')).toMatch(/speaks plain HTTP on this port: use http:\/\/ in the base URL \(http:\/\/h:8080\/v1\)/);
    expect(transportAdvice(failure('network', 'certificate'), 'https://h/v1')).toMatch(/NODE_EXTRA_CA_CERTS/);
    // A message that reads like a TLS failure is not one.
    expect(transportAdvice(failure('network', 'connect'), 'https://h/v1')).toBe('could not reach the server: check the base URL and the network');
  });

  it('suggests https:// when a plain-HTTP request had its connection closed, and not for a refused one', () => {
    expect(transportAdvice(failure('network', 'reset'), 'http://h:8443/v1')).toMatch(/if the server expects HTTPS on this port, use https:\/\/ \(https:\/\/h:8443\/v1\)$/);
    expect(transportAdvice(failure('network', 'connect'), 'http://h:8443/v1')).toBe('could not reach the server: check the base URL and the network');
    expect(transportAdvice(failure('timeout', 'headers-timeout'), 'http://h/v1')).toMatch(/^no complete answer within --timeout/);
  });
});

describe('the source', () => {
  it("never reads a transport failure's message to decide anything (its kind and code are the data)", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
    const reads = /transport\??\.message\??\.(includes|startsWith|endsWith|match)\(|\.(test|exec)\([^)]*transport\??\.message/;
    const found = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'suites'))].flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((line) => reads.test(line))
        .map((line) => `${f.slice(ROOT.length)}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
