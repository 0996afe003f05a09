import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/exchange.js';
import type { ChatBody, ProbeContext } from '../../src/engine/probe.js';
import { parseProbeFile, probeFileJsonSchema, PROBE_SCHEMA_URL } from '../../src/config/probe-file.js';
import { declarativeCost, declarativeProbe, judgeDeclarative, MATCH_MAX_CHARS, parsePath, showsEffect, type DeclarativeEvidence, type DeclarativeSpec } from '../../suites/support/declarative.js';
import { errorIn200, raw, refused, reply } from '../helpers/exchanges.js';
import { ROOT } from '../helpers/cli.js';

/**
 * The declarative probe's judgement (suites/support/declarative.ts), from hand-made exchanges: each
 * verdict with the control that rules out the other explanation, and the traps (an error body in a 200,
 * a refusal of our own limit, a control that shows the effect or got no answer, our cut, the output
 * limit, chance, a model too weak to write the effect).
 */

let ids = 0;
/** A 200 chat completion: `message` fields beside the content, `top` fields beside choices. */
function answer(content: string | null, o: { message?: Record<string, unknown>; top?: Record<string, unknown>; finish?: string; id?: string } = {}): Exchange {
  const body = {
    id: o.id ?? `chatcmpl-d${++ids}`,
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content, ...o.message }, finish_reason: o.finish ?? 'stop' }],
    usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
    ...o.top,
  };
  return raw(200, JSON.stringify(body));
}

const ask = (content: string, extra: Record<string, unknown> = {}): ChatBody => ({ messages: [{ role: 'user', content }], max_tokens: 16, ...extra });

/** A vendor field the server adds: safe_mode: true → choices[0].message.safety. */
const SERVER: DeclarativeSpec = {
  id: 'acme.safe_mode',
  area: 'acme',
  requirement: 'safe_mode: true adds choices[0].message.safety.',
  feature: 'safe_mode: true',
  names: ['safe_mode'],
  request: ask('Reply with the single word OK.', { safe_mode: true }),
  control: ask('Reply with the single word OK.'),
  writtenBy: 'server',
  effect: [{ path: 'choices[0].message.safety', test: { exists: true } }],
};

/** An effect the model writes: shout: true → the answer in capitals. */
const MODEL: DeclarativeSpec = {
  ...SERVER,
  id: 'acme.shout',
  requirement: 'shout: true answers in capital letters.',
  feature: 'shout: true',
  names: ['shout'],
  request: ask('Reply with the single word ok.', { shout: true }),
  control: ask('Reply with the single word ok.'),
  writtenBy: 'model',
  effect: [{ path: 'choices[0].message.content', test: { matches: '^[A-Z]+$' } }],
};
const POSITIVE: DeclarativeSpec = { ...MODEL, positive: ask('Reply with the single word OK, in capital letters.') };

const safe = () => answer('OK', { message: { safety: { rating: 'low' } } });
const judge = (spec: DeclarativeSpec, ev: DeclarativeEvidence) => judgeDeclarative(spec, ev);
const verdictOf = (spec: DeclarativeSpec, ev: DeclarativeEvidence) => {
  const step = judge(spec, ev);
  if (!('verdict' in step)) throw new Error(`asked for more: ${step.more}`);
  return step.verdict;
};

describe('a field the server writes (one answer each decides)', () => {
  it('honoured: the field with the feature, and the same request without it has none', () => {
    const v = verdictOf(SERVER, { with: [safe()], without: [answer('OK')] });
    expect(v.verdict).toBe('honoured');
    expect(v.observed).toBe('expected choices[0].message.safety present with safe_mode: true and not without it; got it with it, and no choices[0].message.safety without it');
  });

  it('ignored: a readable answer with the feature and no field', () => {
    const v = verdictOf(SERVER, { with: [answer('OK')], without: [answer('OK')] });
    expect(v).toMatchObject({ verdict: 'ignored', observed: 'expected choices[0].message.safety present with safe_mode: true, got no choices[0].message.safety' });
  });

  it('rejected: a clean refusal naming the feature while the control answered', () => {
    const v = verdictOf(SERVER, { with: [refused(400, 'Unrecognized request argument supplied: safe_mode', { param: 'safe_mode' })], without: [answer('OK')] });
    expect(v.verdict).toBe('rejected');
    expect(v.findings?.[0]?.code).toBe('clean_refusal');
  });

  it('never rejected against a control that got no answer: both refused is the request, not the feature', () => {
    const v = verdictOf(SERVER, { with: [refused(400, 'safe_mode is not supported')], without: [refused(400, 'bad request')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/without it got no answer either/);
  });

  it('trap: a refusal of the output limit chatprobe sends says nothing of the feature', () => {
    const v = verdictOf(SERVER, { with: [refused(400, 'max_tokens is too large for this model', { param: 'max_tokens' })], without: [answer('OK')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/naming max_tokens/);
  });

  it('trap: an error body in a 200 is no answer, never ignored', () => {
    const v = verdictOf(SERVER, { with: [errorIn200()], without: [answer('OK')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.findings?.map((f) => f.code)).toEqual(['error_in_2xx']);
  });

  it('trap: a 200 with no choice is no answer', () => {
    expect(verdictOf(SERVER, { with: [raw(200, '{"object":"chat.completion","choices":[]}')], without: [answer('OK')] }).verdict).toBe('inconclusive');
  });

  it("trap: an answer chatprobe cut at its own cap is not read, so nothing in it is blamed", () => {
    const cut = { ...answer('OK'), truncated: true } as Exchange;
    const v = verdictOf(SERVER, { with: [cut], without: [answer('OK')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/chatprobe stopped reading at its own cap/);
  });

  it('trap: the control shows the effect too, so the feature is not what made it', () => {
    const v = verdictOf(SERVER, { with: [safe()], without: [safe()] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/shows it too/);
  });

  it('trap: the control got no answer (an error in its 200), so nothing shows the effect needs the feature', () => {
    const v = verdictOf(SERVER, { with: [safe()], without: [errorIn200()] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/without it got no answer/);
  });

  it('a 5xx that does not name the feature is an error with its cause, not a refusal', () => {
    const v = verdictOf(SERVER, { with: [refused(502, 'bad gateway')], without: [answer('OK')] });
    expect(v.verdict).toBe('error');
    expect(v.cause).toBeDefined();
  });
});

describe('an effect the model writes (chance and a weak model ruled out)', () => {
  it('honoured only with every answer on its side, 2 with and 3 without: one pair is chance', () => {
    const withX = [answer('OK')];
    const withoutX = [answer('ok')];
    expect(judge(MODEL, { with: withX, without: withoutX })).toEqual({ more: 'without' });
    withoutX.push(answer('ok'));
    expect(judge(MODEL, { with: withX, without: withoutX })).toEqual({ more: 'with' });
    withX.push(answer('OK'));
    expect(judge(MODEL, { with: withX, without: withoutX })).toEqual({ more: 'without' });
    withoutX.push(answer('Ok'));
    const v = verdictOf(MODEL, { with: withX, without: withoutX });
    expect(v.verdict).toBe('honoured');
    expect(v.observed).toMatch(/2 with it and 3 without/);
  });

  it('trap: answers a cache handed back again, id and all, are one sample: chance is not ruled out', () => {
    const v = verdictOf(MODEL, { with: [answer('OK', { id: 'a' }), answer('OK', { id: 'a' })], without: [answer('ok', { id: 'b' }), answer('ok', { id: 'b' }), answer('ok', { id: 'b' })] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/could be chance/);
  });

  it('an effect that comes and goes with the feature is neither honoured nor ignored', () => {
    const v = verdictOf(MODEL, { with: [answer('OK'), answer('ok')], without: [answer('ok'), answer('ok')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/1 of 2 answers with it show it/);
  });

  it('trap: no effect is not ignored without a positive control: the model may be too weak to write it', () => {
    const v = verdictOf(MODEL, { with: [answer('ok')], without: [answer('ok')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/no positive control/);
  });

  it('ignored once the positive control, asking in plain words, shows the model writes it', () => {
    expect(judge(POSITIVE, { with: [answer('ok')], without: [answer('ok')] })).toEqual({ more: 'positive' });
    const v = verdictOf(POSITIVE, { with: [answer('ok')], without: [answer('ok')], positive: answer('OK') });
    expect(v).toMatchObject({ verdict: 'ignored' });
    expect(v.observed).toBe('expected choices[0].message.content matching /^[A-Z]+$/ with shout: true, got choices[0].message.content = "ok"; the positive control, asking for it in plain words, shows it');
  });

  it('trap: a positive control without the effect either leaves it open (a weak model)', () => {
    const v = verdictOf(POSITIVE, { with: [answer('ok')], without: [answer('ok')], positive: answer('ok') });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/model may be unable to write it/);
  });

  it('trap: an answer cut by the output limit chatprobe sends is no evidence of absence', () => {
    const v = verdictOf(POSITIVE, { with: [answer('o', { finish: 'length' })], without: [answer('ok')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/cut by the output limit/);
    const control = verdictOf(MODEL, { with: [answer('OK')], without: [answer('o', { finish: 'length' })] });
    expect(control.verdict).toBe('inconclusive');
    expect(control.observed).toMatch(/the control lacks it .* but was cut by the output limit/);
  });

  it('trap: the text gone to a reasoning field is no answer', () => {
    const v = verdictOf(MODEL, { with: [answer('', { message: { reasoning_content: 'OK' } })], without: [answer('ok')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/reasoning field/);
  });

  it('a request answered once and refused once is no refusal of the feature', () => {
    const v = verdictOf(MODEL, { with: [answer('OK'), refused(400, 'shout is not supported', { param: 'shout' })], without: [answer('ok'), answer('ok')] });
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/answered once, then refused/);
  });
});

describe('checks of an answer', () => {
  const check = (json: unknown, test: DeclarativeSpec['effect'][number]['test'], path = 'x') => showsEffect(json, [{ path, test }]);

  it('reads paths: keys, [n], ["odd.key"]', () => {
    expect(parsePath('choices[0].message.safety')).toEqual(['choices', 0, 'message', 'safety']);
    expect(parsePath('usage["x.vendor"].n')).toEqual(['usage', 'x.vendor', 'n']);
    for (const bad of ['', 'a..b', 'a[x]', '.a', 'a[0']) expect(typeof parsePath(bad), bad).toBe('string');
  });

  it('exists (null is there), equals (as JSON, keys in any order), matches (strings only)', () => {
    expect(check({ x: null }, { exists: true })).toEqual({ shows: true });
    expect(check({}, { exists: false })).toEqual({ shows: true });
    expect(check({ x: 1 }, { exists: false })).toEqual({ shows: false, got: 'x = 1' });
    expect(check({ x: { a: 1, b: [2] } }, { equals: { b: [2], a: 1 } })).toEqual({ shows: true });
    expect(check({ x: '1' }, { equals: 1 })).toEqual({ shows: false, got: 'x = "1"' });
    expect(check({ x: 5 }, { matches: '5' })).toEqual({ shows: false, got: 'x = 5, not a string' });
    expect(check({ x: [1] }, { exists: true }, 'x[1]')).toEqual({ shows: false, got: 'no x[1]' });
    // Inherited keys are not the answer's.
    expect(check({}, { exists: true }, 'constructor')).toEqual({ shows: false, got: 'no constructor' });
  });

  it('a string past what chatprobe matches a pattern against is undecided, and said as our limit', () => {
    const s = check({ x: 'a'.repeat(MATCH_MAX_CHARS + 1) }, { matches: 'b' });
    expect(s).toMatchObject({ undecided: expect.stringMatching(/its own limit/) });
    const v = verdictOf(MODEL, { with: [answer('A'.repeat(MATCH_MAX_CHARS + 1))], without: [answer('ok')] });
    expect(v.verdict).toBe('inconclusive');
  });
});

/** A context that answers each request with a fresh answer of its own, and records what was sent. */
function fakeContext(answers: Map<ChatBody, () => Exchange>): { ctx: ProbeContext; sent: ChatBody[] } {
  const sent: ChatBody[] = [];
  const ctx = {
    chat: async (body: ChatBody) => {
      sent.push(body);
      return answers.get(body)!();
    },
  } as unknown as ProbeContext;
  return { ctx, sent };
}

describe('the probe a spec makes', () => {
  it('sends the request and the control, then what the judgement asks for, within the cost it declares', async () => {
    const probe = declarativeProbe(MODEL);
    expect(probe).toMatchObject({ id: 'acme.shout', area: 'acme', kind: 'capability', scope: 'model' });
    const { ctx, sent } = fakeContext(new Map([[MODEL.request, () => answer('OK')], [MODEL.control, () => answer('ok')]]));
    expect((await probe.run(ctx)).verdict).toBe('honoured');
    expect(sent.filter((b) => b === MODEL.request)).toHaveLength(2);
    expect(sent.filter((b) => b === MODEL.control)).toHaveLength(3);
    expect(sent.length).toBeLessThanOrEqual(probe.cost.requests);
  });

  it('prices a pair for a server field, and the dearer way to a verdict for a model effect', () => {
    expect(declarativeCost(SERVER)).toEqual({ requests: 2, maxTokens: 32 });
    expect(declarativeCost(MODEL)).toEqual({ requests: 5, maxTokens: 80 });
    expect(declarativeCost({ ...POSITIVE, positive: { ...POSITIVE.positive!, max_tokens: 200 } })).toEqual({ requests: 5, maxTokens: 232 });
  });
});

describe('a .probe.json file', () => {
  const shipped = JSON.parse(readFileSync(`${ROOT}schema/probe.schema.json`, 'utf8')) as Record<string, unknown>;
  const validate = new Ajv2020({ strict: false }).compile(shipped);
  /** The example the README shows (the one fenced JSON block with an "effect"). */
  const readmeExample = () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    const blocks = [...readme.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes('"effect"'));
    expect(blocks).toHaveLength(1);
    return JSON.parse(blocks[0]!) as Record<string, unknown>;
  };
  const file = { id: 'acme.safe_mode', requirement: 'r', request: SERVER.request, control: SERVER.control, writtenBy: 'server', effect: [{ path: 'choices[0].message.safety', exists: true }] };
  const problem = (raw: unknown) => {
    try {
      parseProbeFile(raw, 'p.json');
    } catch (e) {
      return (e as Error).message;
    }
    return 'accepted';
  };

  it('is validated by a schema generated from the zod model it is read with (run npm run schema after changing it)', () => {
    expect(shipped).toEqual(probeFileJsonSchema());
    expect(shipped.$id).toBe(PROBE_SCHEMA_URL);
  });

  it("accepts the README's example, which points $schema at it, and chatprobe reads it", () => {
    const example = readmeExample();
    expect(example.$schema).toBe(PROBE_SCHEMA_URL);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(parseProbeFile(example, 'acme.probe.json')).toMatchObject({ area: expect.any(String), writtenBy: 'server' });
  });

  it('names the feature and what a refusal names from the fields the request adds, unless told', () => {
    expect(parseProbeFile(file, 'p.json')).toMatchObject({ area: 'acme', feature: 'safe_mode: true', names: ['safe_mode'] });
    expect(parseProbeFile({ ...file, feature: 'safe mode', names: ['safe_mode', 'safety'] }, 'p.json')).toMatchObject({ feature: 'safe mode', names: ['safe_mode', 'safety'] });
  });

  it('refuses, as the schema does, a body without an output limit, a model or a stream, an unknown key, a check of two tests', () => {
    const bads: [unknown, string][] = [
      [{ ...file, request: { messages: [{ role: 'user', content: 'x' }], safe_mode: true } }, 'request: no output limit: add "max_tokens": 16'],
      [{ ...file, request: { ...SERVER.request, model: 'gpt-4o' } }, 'request.model: chatprobe sends the model under test itself'],
      [{ ...file, control: { ...SERVER.control, stream: true } }, 'control.stream: the declarative form reads one JSON answer'],
      [{ ...file, extra: 1 }, 'the top level: unknown key "extra"'],
      [{ ...file, effect: [{ path: 'a', exists: true, matches: 'x' }] }, 'effect.0: a check takes exactly one of "exists", "equals", "matches" (got exists, matches)'],
      [{ ...file, effect: [] }, 'effect: a list is less than 1 items'],
      [{ ...file, id: 'Acme.x' }, 'id: expected area.feature[.aspect]'],
    ];
    for (const [bad, message] of bads) {
      expect(validate(bad), message).toBe(false);
      expect(problem(bad)).toContain(`invalid probe file p.json: ${message}`);
    }
  });

  it('refuses what only chatprobe can check: a control that is the request, a bad path or pattern, a positive control for a server field', () => {
    expect(problem({ ...file, control: SERVER.request })).toContain('control: the control is the request itself');
    expect(problem({ ...file, effect: [{ path: 'a..b', exists: true }] })).toContain('effect.0.path: "a..b" is not a path');
    expect(problem({ ...file, effect: [{ path: 'a', matches: '(' }] })).toContain('effect.0.matches: "(" is not a regular expression');
    expect(problem({ ...file, positive: SERVER.control })).toContain('positive: a positive control is for an effect the model writes');
  });
});
