import { describe, expect, it } from 'vitest';
import { honoured, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { contrasted } from '../../suites/support/contrast.js';
import { judgeJsonObject } from '../../suites/support/json-answer.js';
import { judgeRepeatable, type Repeatable } from '../../suites/support/repeat.js';
import { judgeNamed, judgeNone, judgeParallel, judgeRequired } from '../../suites/support/tools.js';
import { runContrast } from '../helpers/contrast.js';
import { errorIn200, refused, reply } from '../helpers/exchanges.js';

/**
 * Contrasts at temperature 0 where it repeats (suites/support/repeat.ts): one answer a side decides, because
 * greedy decoding gives one answer to one request. The gate is parameters.temperature's own verdict, with
 * the answers at 0 separate samples; everything else keeps the chance bound's answers (contrast.ts).
 */
const ok = reply('OK', { usage: [14, 1] });
const paris = { name: 'get_weather', args: { city: 'Paris' } };
const tokyo = { name: 'get_weather', args: { city: 'Tokyo' } };
const weatherCalls = reply(null, { calls: [paris, tokyo], usage: [90, 20] });
const oneCall = reply(null, { calls: [paris], usage: [140, 10] });
const timeCall = reply(null, { calls: [{ name: 'get_time', args: { timezone: 'Europe/Paris' } }], usage: [140, 10] });
const words = (s: string) => reply(s, { usage: [14, 3] });
const obj = reply('{"sky":"blue"}');
const prose = reply('The sky is blue, and the Earth has one moon.');

const REPEAT: Repeatable = { settings: { temperature: 0 }, sent: 'at temperature 0', why: 'temperature 0 repeats (test)' };
const at0 = (...texts: string[]) => texts.map((t) => reply(t));

describe('judgeRepeatable (the gate)', () => {
  it('takes temperature 0 where parameters.temperature is honoured on separate samples', () => {
    const r = judgeRepeatable(honoured('three alike'), at0('482913', '482913', '482913'));
    expect(r?.settings).toEqual({ temperature: 0 });
    expect(r?.why).toContain('3 answers at 0 alike, each with its own id');
  });

  it('trap: three answers at 0 handed back with one id (a cache that keeps temperature 0 answers) are one sample: no gate', () => {
    const cached = [reply('482913', { id: 'c1' }), reply('482913', { id: 'c1' }), reply('482913', { id: 'c1' })];
    expect(judgeRepeatable(honoured('three alike'), cached)).toBeUndefined();
  });

  it('trap: agreement likely by chance, answers that vary at 0, or temperature 0 refused: no gate', () => {
    expect(judgeRepeatable(inconclusive('agreement this likely by chance (up to 20%)'), at0('1', '1', '1'))).toBeUndefined();
    expect(judgeRepeatable(inconclusive('the answers vary with temperature: 0'), at0('1', '2', '3'))).toBeUndefined();
    const no = refused(400, "Unsupported value: 'temperature' does not support 0", { param: 'temperature' });
    expect(judgeRepeatable(refusal(no, ok, 'temperature', 'temperature'), [no])).toBeUndefined();
  });

  it('takes a fixed seed at temperature 1 where temperature 0 gives no gate and parameters.seed is honoured on separate samples', () => {
    const no = refused(400, "Unsupported value: 'temperature' does not support 0", { param: 'temperature' });
    const r = judgeRepeatable(refusal(no, ok, 'temperature', 'temperature'), [no], { verdict: honoured('three alike'), seeded: at0('731', '731', '731') });
    expect(r?.settings).toEqual({ temperature: 1, seed: 42 });
    expect(r?.sent).toBe('with seed 42 at temperature 1');
    // Temperature 0 comes first where both repeat.
    expect(judgeRepeatable(honoured('alike'), at0('1', '1', '1'), { verdict: honoured('alike'), seeded: at0('2', '2', '2') })?.settings).toEqual({ temperature: 0 });
  });

  it('trap: a seed that drifts (answers that vary less without repeating), or seeded answers with one id, give no gate', () => {
    const no = refused(400, 'temperature must be 1', { param: 'temperature' });
    const drift = inconclusive('the answers vary less with seed: 42 than without it, so it has an effect, but they do not repeat exactly');
    expect(judgeRepeatable(refusal(no, ok, 'temperature', 'temperature'), [no], { verdict: drift, seeded: at0('7', '7', '8') })).toBeUndefined();
    const cached = [reply('731', { id: 's1' }), reply('731', { id: 's1' }), reply('731', { id: 's1' })];
    expect(judgeRepeatable(refusal(no, ok, 'temperature', 'temperature'), [no], { verdict: honoured('alike'), seeded: cached })).toBeUndefined();
  });
});

describe('contrasts at temperature 0 where it repeats', () => {
  it('decides on one answer a side, saying why chance is ruled out', () => {
    const v = runContrast((w, wo) => judgeJsonObject(w, wo, ok, REPEAT), [obj], [prose]);
    expect(v.verdict).toBe('honoured');
    expect(v.used).toEqual([1, 1]);
    expect(v.observed).toContain('one answer a side, both sent at temperature 0, where temperature 0 repeats (test)');
    expect(runContrast((w, wo) => judgeNone(w, wo, REPEAT), [words('It is sunny.')], [weatherCalls]).used).toEqual([1, 1]);
    expect(runContrast((w, wo) => judgeParallel(w, wo, REPEAT), [oneCall], [weatherCalls]).verdict).toBe('honoured');
    expect(runContrast((w, wo) => judgeRequired(w, wo, weatherCalls, ok, REPEAT), [oneCall], [words('OK')]).verdict).toBe('honoured');
    expect(runContrast((w, wo) => judgeNamed(w, wo, oneCall, weatherCalls, ok, REPEAT), [timeCall], [words('OK')]).verdict).toBe('honoured');
  });

  it('the same answers without the gate still need the chance bound (1 a side is 25%)', () => {
    expect(() => runContrast((w, wo) => judgeJsonObject(w, wo, ok), [obj], [prose])).toThrow(/asked for answer 2/);
    expect(contrasted([obj], [prose], 'x')).toEqual({ more: 'without' });
    expect(runContrast((w, wo) => judgeJsonObject(w, wo, ok), [obj, obj], [prose, prose, prose]).used).toEqual([2, 3]);
  });

  it('trap: the gate never turns the wrong side into honoured: the effect without the parameter, or none with it, decides as before', () => {
    // JSON without response_format too: the format's effect cannot show.
    expect(runContrast((w, wo) => judgeJsonObject(w, wo, ok, REPEAT), [obj], [obj]).verdict).toBe('inconclusive');
    // Prose in JSON mode: ignored, whatever the gate.
    expect(runContrast((w, wo) => judgeJsonObject(w, wo, ok, REPEAT), [prose], [prose]).verdict).toBe('ignored');
    // A call under tool_choice "none": ignored; no call without it either: nothing to prevent.
    expect(runContrast((w, wo) => judgeNone(w, wo, REPEAT), [weatherCalls], [weatherCalls]).verdict).toBe('ignored');
    expect(runContrast((w, wo) => judgeNone(w, wo, REPEAT), [words('No idea.')], [words('No idea.')]).verdict).toBe('inconclusive');
    // One call where the model makes one without it too: nothing was limited.
    expect(runContrast((w, wo) => judgeParallel(w, wo, REPEAT), [oneCall], [oneCall]).verdict).toBe('inconclusive');
    // A forced call where the model calls unforced too: proves nothing.
    expect(runContrast((w, wo) => judgeRequired(w, wo, weatherCalls, ok, REPEAT), [oneCall], [oneCall]).verdict).toBe('inconclusive');
    // get_time called unforced: the named choice proves nothing.
    expect(runContrast((w, wo) => judgeNamed(w, wo, oneCall, weatherCalls, ok, REPEAT), [timeCall], [timeCall]).verdict).toBe('inconclusive');
  });

  it('trap: a refusal or an error in a 200 is judged before the gate is read', () => {
    const no = refused(400, "Unsupported parameter: 'parallel_tool_calls'", { param: 'parallel_tool_calls' });
    expect(runContrast((w, wo) => judgeParallel(w, wo, REPEAT), [no], [weatherCalls]).verdict).toBe('rejected');
    expect(runContrast((w, wo) => judgeJsonObject(w, wo, ok, REPEAT), [errorIn200()], [prose]).verdict).toBe('inconclusive');
    expect(runContrast((w, wo) => judgeNone(w, wo, REPEAT), [words('It is sunny.')], [errorIn200()]).verdict).toBe('inconclusive');
  });
});
