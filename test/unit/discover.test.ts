import { describe, expect, it } from 'vitest';
import { readModelList } from '../../src/engine/discover.js';
import { CannotTestError } from '../../src/errors.js';
import type { Exchange } from '../../src/engine/exchange.js';
import { raw } from '../helpers/exchanges.js';

const BASE = 'http://gw.example:8080/v1';

/** The message and hint a failed GET /models stops the run with. */
function refusal(x: Exchange, base = BASE): { message: string; advice: string | undefined } {
  try {
    readModelList(x, base);
  } catch (e) {
    if (e instanceof CannotTestError) return { message: e.message, advice: e.advice };
    throw e;
  }
  throw new Error('the list was read');
}

const redirect = (location: string, body = '') => {
  const x = raw(302, body, body ? 'text/html' : '');
  x.headers.location = location;
  return x;
};

describe('GET /models answered with a failure: the hint points where the answer says', () => {
  it('reads a model list', () => {
    expect(readModelList(raw(200, JSON.stringify({ object: 'list', data: [{ id: 'a' }, { id: 'b', max_model_len: 8 }] })), BASE).map((m) => m.id)).toEqual(['a', 'b']);
  });

  it('a redirect to HTTPS on the same host: use https://, on the port and path it names', () => {
    expect(refusal(redirect('https://gw.example/v1/models')).advice).toBe('the server sends plain HTTP to HTTPS: use https:// in the base URL (https://gw.example/v1)');
    expect(refusal(redirect('https://gw.example:8443/api/v1/models')).advice).toBe('the server sends plain HTTP to HTTPS: use https:// in the base URL (https://gw.example:8443/api/v1)');
    expect(refusal(redirect('https://gw.example/')).advice).toBe('the server sends plain HTTP to HTTPS: use https:// in the base URL (https://gw.example/v1)');
  });

  it('any other redirect, HTML body or not: no redirect is followed, and a login page means a web app (never "could not reach the server")', () => {
    for (const x of [redirect('https://sso.example/login', '<html><body>Found</body></html>'), redirect('/v1/models/')]) {
      const { message, advice } = refusal(x);
      expect(message).toMatch(/answered HTTP 302/);
      expect(advice).toMatch(/^a login page there means the base URL is a web app, not the API root/);
      expect(advice).not.toMatch(/could not reach/);
    }
  });

  it('an HTML error page with a 5xx: the server or its proxy failed, not a wrong base URL; with a 404 or 200 the base URL is wrong', () => {
    expect(refusal(raw(502, '<html><body>502 Bad Gateway</body></html>', 'text/html')).advice).toMatch(/^the server, or a proxy in front of it, failed while listing its models/);
    for (const status of [200, 404]) expect(refusal(raw(status, '<!doctype html><p>hi</p>', 'text/html')).advice).toMatch(/^the base URL looks wrong/);
  });

  it('a JSON 5xx: the server failed to list its models (no model or channel to blame yet)', () => {
    const { message, advice } = refusal(raw(500, JSON.stringify({ error: { message: 'database unavailable', type: 'server_error' } })));
    expect(message).toContain('HTTP 500: database unavailable');
    expect(advice).toMatch(/^the server, or a proxy in front of it, failed while listing its models/);
    expect(advice).not.toMatch(/this model/);
  });

  it('a 404 or 405: nothing answers GET /models there; the key, quota and rate limits keep their own advice', () => {
    for (const status of [404, 405]) expect(refusal(raw(status, JSON.stringify({ error: { message: 'Not Found' } }))).advice).toMatch(/^nothing answers GET \/models there/);
    expect(refusal(raw(401, JSON.stringify({ error: { message: 'invalid api key' } }))).advice).toMatch(/token is at fault/);
    expect(refusal(raw(429, JSON.stringify({ error: { message: 'rate limit exceeded' } }))).advice).toMatch(/^rate limited/);
  });

  it('adds the missing /v1 to any hint when the base URL has no version segment', () => {
    expect(refusal(raw(404, '{}'), 'http://gw.example:8080').advice).toMatch(/note that the base URL does not end in \/v1$/);
  });
});
