import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/http/client.js';
import { Profile } from '../../src/reference/profile.js';
import { loadProfile, PROFILE_NAMES } from '../../src/reference/profiles.js';
import { ENDPOINT, type Verdict } from '../../src/results/model.js';
import { PROBES } from '../../suites/index.js';
import { declared, ENDPOINT_RULES, expectations, MODEL_RULES, ruleVerdict, Undecided } from '../oracle/expectations.js';

/**
 * The oracle's rules (test/oracle/expectations.ts) on small hand-made models, traps included: each case
 * names what the model declares and the verdict the audit must give. That the rules reproduce every
 * verdict the profiles kept by hand before them is checked once by `scripts/oracle-cells.ts --against
 * f0a09b0`; that the audits give them, by the oracle test.
 */

type ModelSpec = Record<string, unknown>;

function profileOf(model: ModelSpec, server: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Profile {
  return Profile.parse({ name: 'hand-made', description: 'a unit test', server, models: [{ id: 'm', ...model }], ...extra });
}

/** The rule's verdict for one probe on a model that declares `model` (on a server with `server`). */
function v(probe: string, model: ModelSpec = {}, server: Record<string, unknown> = {}): Verdict | undefined {
  const p = profileOf(model, server);
  return ruleVerdict(declared(p, p.models[0]!), probe);
}

/** Every model-scope verdict for one model, by probe. */
function row(model: ModelSpec = {}, server: Record<string, unknown> = {}): Record<string, Verdict | undefined> {
  const p = profileOf(model, server);
  const d = declared(p, p.models[0]!);
  return Object.fromEntries(Object.keys(MODEL_RULES).map((probe) => [probe, ruleVerdict(d, probe)]));
}

const endpoint = (probe: string, server: Record<string, unknown> = {}) => ENDPOINT_RULES[probe]!(profileOf({}, server).server);

const reject = (message = 'not supported') => ({ reject: { message } });
const PLAIN_STREAM_PROBES = ['streaming.basic', 'streaming.framing', 'streaming.done', 'streaming.chunk_schema', 'streaming.role_first', 'streaming.finish_once', 'streaming.unrequested_usage', 'streaming.error_in_band', 'streaming.buffered'];

describe('the oracle rules', () => {
  it('give every probe one rule, and no rule to a probe that does not exist', () => {
    const model = PROBES.filter((p) => p.scope !== 'target').map((p) => p.id);
    const target = PROBES.filter((p) => p.scope === 'target').map((p) => p.id);
    expect(Object.keys(MODEL_RULES).sort()).toEqual(model.sort());
    expect(Object.keys(ENDPOINT_RULES).sort()).toEqual(target.sort());
  });

  it('derive a model that declares nothing as a well-behaved one: honoured, accepted, pass; reasoning probes inconclusive, and the usage probes that need a named tokenizer', () => {
    const r = row();
    // The pseudo-model's own count is a tokenizer outside the table: nothing names it, nothing counts its answer.
    const unnamed = ['usage.tokenizer', 'usage.completion'];
    for (const p of PROBES.filter((x) => x.scope !== 'target' && x.area !== 'billing')) {
      const want = p.area === 'reasoning' || unnamed.includes(p.id) ? 'inconclusive' : p.kind === 'conformance' ? 'pass' : p.verdicts.includes('honoured') ? 'honoured' : 'accepted';
      expect(r[p.id], p.id).toBe(want);
    }
  });

  it('err on every probe of a model whose every request fails, and judge one that fails only at first', () => {
    const failure = { status: 503, body: { error: { message: 'no channel' } } };
    expect(new Set(Object.values(row({ failure })))).toEqual(new Set(['error']));
    expect(v('chat.basic', { failure: { ...failure, times: 2 } })).toBe('pass');
  });

  it('read refusals of invalid requests by the shape the server refuses in; a refusal past chatprobe’s cap is not read', () => {
    const styles: [string, Verdict][] = [['openai', 'pass'], ['fastapi', 'warn'], ['top-level', 'warn'], ['new-api', 'fail'], ['html', 'fail'], ['text', 'fail']];
    for (const [errorStyle, want] of styles) {
      for (const probe of ['errors.missing_messages', 'errors.wrong_type', 'errors.invalid_role', 'errors.out_of_range', 'errors.malformed_json']) {
        const got = probe === 'errors.malformed_json' ? endpoint(probe, { errorStyle }) : v(probe, {}, { errorStyle });
        expect(got, `${errorStyle} ${probe}`).toBe(want);
      }
    }
    expect(v('errors.wrong_type', {}, { errorPadding: DEFAULT_MAX_BODY_BYTES + 1 })).toBe('inconclusive');
    // Padding chatprobe reads whole changes nothing.
    expect(v('errors.wrong_type', {}, { errorPadding: 1000 })).toBe('pass');
    // A lenient server answers a wrong type: what it answers decides.
    expect(v('errors.wrong_type', {}, { validation: 'lenient' })).toBeUndefined();
  });

  it('read out-of-range values by what the route does with them, and leave a model that never stops untested on one', () => {
    expect(v('errors.out_of_range', { quirks: { outOfRange: 'clamp' } })).toBe('warn');
    expect(v('errors.out_of_range', { quirks: { outOfRange: 'llama-cpp' } })).toBe('warn');
    expect(v('errors.out_of_range', { quirks: { outOfRange: 'crash' } })).toBe('fail');
    expect(v('errors.out_of_range', { quirks: { outOfRange: 'unnamed' } })).toBe('warn');
    expect(v('errors.out_of_range', { quirks: { outOfRange: 'unnamed' } }, { errorStyle: 'new-api' })).toBe('fail');
    // Our own restraint: max_tokens -5 is not sent to a runaway model, so a clean pass becomes inconclusive…
    expect(v('errors.out_of_range', { quirks: { runaway: true } })).toBe('inconclusive');
    // …but a fault another value shows stands.
    expect(v('errors.out_of_range', { quirks: { runaway: true, outOfRange: 'clamp' } })).toBe('warn');
  });

  it('judge the plain answer from the quirks that spoil it: an error body in a 200, a stream unasked, a body past the cap', () => {
    expect(row({ quirks: { errorIn200: true } })).toMatchObject({ 'chat.basic': 'fail', 'chat.schema': 'fail', 'chat.usage': 'warn', 'chat.error_in_2xx': 'fail', 'streaming.no_stream_field': 'pass' });
    expect(row({ quirks: { streamByDefault: true } })).toMatchObject({ 'chat.basic': 'fail', 'chat.usage': 'warn', 'chat.error_in_2xx': 'inconclusive', 'streaming.no_stream_field': 'fail' });
    const padded = row({ quirks: { paddedBody: DEFAULT_MAX_BODY_BYTES + 1 } });
    for (const probe of ['chat.basic', 'chat.schema', 'chat.finish_reason', 'chat.usage', 'chat.model_echo', 'chat.error_in_2xx', 'streaming.no_stream_field', 'streaming.integrity']) expect(padded[probe], probe).toBe('inconclusive');
    // Trap: padding chatprobe reads whole is a valid answer.
    expect(row({ quirks: { paddedBody: 1000 } })['chat.basic']).toBe('pass');
  });

  it('judge the answer’s fields: finish_reason, schema tiers, usage, the model named', () => {
    expect(v('chat.finish_reason', { quirks: { finishReason: 'end_turn' } })).toBe('warn');
    expect(v('chat.finish_reason', { quirks: { finishReason: '' } })).toBe('fail');
    expect(v('chat.finish_reason', { quirks: { finishReason: null } })).toBe('fail');
    expect(v('chat.finish_reason', { quirks: { runaway: true } })).toBe('fail');
    // Ended by the server's own cap, "length" unasked.
    expect(v('chat.finish_reason', { quirks: { runaway: true, outputCap: 40 } })).toBe('warn');
    expect(v('chat.schema', { quirks: { omitChoiceIndex: true } })).toBe('fail');
    expect(v('chat.schema', { quirks: { omitStrictFields: true } })).toBe('warn');
    expect(v('chat.schema', { quirks: { omitUsage: true } })).toBe('warn');
    expect(v('chat.usage', { quirks: { omitUsage: true } })).toBe('warn');
    expect(v('chat.usage', { quirks: { usageTotalOff: 5 } })).toBe('fail');
    expect(v('chat.model_echo', { quirks: { echoModel: '' } })).toBe('fail');
    expect(v('chat.model_echo', { quirks: { echoModel: 'gpt-3.5-turbo' } })).toBe('warn');
    expect(v('chat.model_echo', { quirks: { echoModel: 'm' } })).toBe('pass');
    expect(v('chat.basic', { quirks: { emptyContent: true } })).toBe('warn');
  });

  it('err on every probe of the plain stream when it stalls or never ends, but not on tool calls that come before the stall', () => {
    const stalls = row({ quirks: { stream: { stallAfter: 3 } } });
    for (const probe of [...PLAIN_STREAM_PROBES, 'streaming.usage', 'streaming.integrity']) expect(stalls[probe], probe).toBe('error');
    expect(stalls).toMatchObject({ 'streaming.content_type': 'pass', 'streaming.no_stream_field': 'pass', 'streaming.tool_calls': 'pass' });
    expect(v('streaming.tool_calls', { quirks: { stream: { endless: true } } })).toBe('error');
  });

  it('fail the stream flag ignored or events joined by single newlines, and leave what they hide inconclusive', () => {
    const json = row({ quirks: { stream: { ignoreStreamFlag: true } } });
    expect(json).toMatchObject({ 'streaming.basic': 'fail', 'streaming.content_type': 'fail', 'streaming.no_stream_field': 'pass', 'streaming.tool_calls': 'inconclusive' });
    for (const probe of PLAIN_STREAM_PROBES.slice(1)) expect(json[probe], probe).toBe('inconclusive');
    const joined = row({ quirks: { stream: { singleNewline: true } } });
    expect(joined).toMatchObject({ 'streaming.basic': 'fail', 'streaming.framing': 'fail', 'streaming.content_type': 'pass', 'streaming.done': 'inconclusive', 'streaming.integrity': 'inconclusive' });
  });

  it('judge each stream quirk where it shows', () => {
    const cases: [ModelSpec['quirks'], Record<string, Verdict>][] = [
      [{ stream: { done: false } }, { 'streaming.done': 'fail', 'streaming.basic': 'pass', 'streaming.error_in_band': 'pass' }],
      [{ stream: { afterDone: true } }, { 'streaming.done': 'warn' }],
      [{ stream: { role: 'every' } }, { 'streaming.role_first': 'warn' }],
      [{ stream: { role: 'never' } }, { 'streaming.role_first': 'warn' }],
      [{ stream: { role: 'wrong' } }, { 'streaming.role_first': 'fail' }],
      [{ stream: { chunkObject: 'chat.completion' } }, { 'streaming.chunk_schema': 'fail' }],
      [{ stream: { intermediateFinish: 'omit' } }, { 'streaming.chunk_schema': 'warn', 'streaming.finish_once': 'warn' }],
      [{ stream: { intermediateFinish: 'empty' } }, { 'streaming.chunk_schema': 'pass', 'streaming.finish_once': 'warn' }],
      [{ stream: { finishTwice: true } }, { 'streaming.finish_once': 'fail' }],
      [{ finishReason: 'end_turn' }, { 'streaming.finish_once': 'warn' }],
      [{ stream: { eventLines: true } }, { 'streaming.framing': 'warn' }],
      [{ stream: { lineEnding: 'crlf', noSpace: true, comments: true } }, { 'streaming.framing': 'pass' }],
      [{ stream: { contentType: 'text/plain' } }, { 'streaming.content_type': 'warn' }],
      [{ stream: { usage: 'every' } }, { 'streaming.usage': 'warn', 'streaming.unrequested_usage': 'warn' }],
      [{ stream: { usage: 'always' } }, { 'streaming.usage': 'pass', 'streaming.unrequested_usage': 'fail' }],
      [{ stream: { usage: 'last-content' } }, { 'streaming.usage': 'warn', 'streaming.unrequested_usage': 'pass' }],
      [{ stream: { usage: 'never' } }, { 'streaming.usage': 'fail' }],
      [{ usageTotalOff: 5 }, { 'streaming.usage': 'fail' }],
      [{ stream: { bufferMs: 300 } }, { 'streaming.buffered': 'fail' }],
      // The usage chunk repeats the last piece: the text shows it twice.
      [{ stream: { usage: 'in-repeat' } }, { 'streaming.usage': 'fail', 'streaming.integrity': 'fail' }],
      [{ stream: { race: 'swap' } }, { 'streaming.integrity': 'fail', 'streaming.finish_once': 'pass' }],
      [{ stream: { race: 'repeat' } }, { 'streaming.integrity': 'fail' }],
    ];
    for (const [quirks, want] of cases) expect(row({ quirks }), JSON.stringify(quirks)).toMatchObject(want);
  });

  it('fail a stream that breaks off, and leave what needs a whole stream inconclusive', () => {
    const error = row({ quirks: { stream: { errorAfter: 3 } } });
    expect(error).toMatchObject({ 'streaming.basic': 'fail', 'streaming.done': 'fail', 'streaming.finish_once': 'fail', 'streaming.usage': 'fail', 'streaming.error_in_band': 'fail', 'streaming.integrity': 'inconclusive', 'streaming.chunk_schema': 'pass', 'streaming.tool_calls': 'pass' });
    // Trap: three content chunks are too few to time, ten are enough.
    expect(error['streaming.buffered']).toBe('inconclusive');
    expect(v('streaming.buffered', { quirks: { stream: { errorAfter: 10 } } })).toBe('pass');
    // Trap: an event too deep for chatprobe to parse may or may not be an error.
    expect(row({ quirks: { stream: { errorAfter: 3, errorDepth: 100_000 } } })).toMatchObject({ 'streaming.framing': 'inconclusive', 'streaming.error_in_band': 'inconclusive', 'streaming.basic': 'fail' });
    expect(row({ quirks: { stream: { closeAfter: 3 } } })).toMatchObject({ 'streaming.basic': 'fail', 'streaming.error_in_band': 'fail', 'streaming.integrity': 'inconclusive', 'streaming.buffered': 'inconclusive' });
    const silent = row({ quirks: { stream: { noFinish: true, done: false } } });
    expect(silent).toMatchObject({ 'streaming.basic': 'fail', 'streaming.error_in_band': 'fail', 'streaming.finish_once': 'fail', 'streaming.integrity': 'inconclusive', 'streaming.tool_calls': 'warn' });
    // Chunks closer than a client tells from a burst: the timing control decides.
    expect(v('streaming.buffered', { chunkDelayMs: 0 })).toBeUndefined();
  });

  it('judge streamed tool calls by how they are streamed, and only where the model calls tools', () => {
    const how: [string, Verdict][] = [['openai', 'pass'], ['one-chunk', 'pass'], ['split-name', 'warn'], ['no-index', 'fail'], ['index-zero', 'fail'], ['empty-id', 'fail'], ['bad-args', 'fail'], ['dropped', 'fail'], ['repeat-args', 'fail']];
    for (const [toolCalls, want] of how) expect(v('streaming.tool_calls', { quirks: { stream: { toolCalls } } }), toolCalls).toBe(want);
    expect(v('streaming.tool_calls', { features: { tools: 'ignore' } })).toBe('inconclusive');
    expect(v('streaming.tool_calls', { features: { tools: reject() } })).toBe('inconclusive');
    expect(v('streaming.tool_calls', { quirks: { callsOnlyWhenForced: true } })).toBe('inconclusive');
    expect(v('streaming.tool_calls', { quirks: { toolCallsAsText: true } })).toBe('fail');
  });

  it('take a parameter’s verdict from its feature: honoured, ignored, rejected; an error body in a 200 tells nothing', () => {
    for (const probe of ['parameters.max_tokens', 'parameters.max_completion_tokens', 'parameters.n', 'parameters.logprobs', 'parameters.tools', 'parameters.seed', 'parameters.top_p']) {
      const key = probe.slice('parameters.'.length);
      expect(v(probe), probe).toBe('honoured');
      expect(v(probe, { features: { [key]: reject() } }), probe).toBe('rejected');
      expect(v(probe, { features: { [key]: { error200: 'upstream failed' } } }), probe).toBe('inconclusive');
      expect(v(probe, { features: { [key]: 'ignore' } }), probe).toBe('ignored');
    }
    for (const probe of ['parameters.stop', 'parameters.stop_many']) {
      expect(v(probe, { features: { stop: 'ignore' } }), probe).toBe('ignored');
      expect(v(probe, { features: { stop: reject() } }), probe).toBe('rejected');
    }
    expect(v('parameters.response_format.json_object', { features: { response_format: 'ignore' } })).toBe('ignored');
    expect(v('parameters.response_format.json_schema', { features: { response_format: reject() } })).toBe('rejected');
  });

  it('say a refusal is no refusal of the feature when the plain request gets no answer either', () => {
    expect(v('parameters.seed', { features: { seed: reject() } })).toBe('rejected');
    expect(v('parameters.seed', { features: { seed: reject() }, quirks: { errorIn200: true } })).toBe('inconclusive');
    expect(v('parameters.unknown_field', { quirks: { streamByDefault: true, emptyContent: true } }, { unknownFields: 'forbid' })).toBe('inconclusive');
    expect(v('parameters.unknown_field', {}, { unknownFields: 'forbid' })).toBe('rejected');
  });

  it('see a gateway’s own cap in place of the client’s limit: the limits ignored, a JSON answer cut', () => {
    const capped = row({ quirks: { outputCap: 16 } });
    expect(capped).toMatchObject({ 'parameters.max_tokens': 'ignored', 'parameters.max_completion_tokens': 'ignored', 'parameters.response_format.json_object': 'inconclusive', 'parameters.stop': 'honoured' });
    expect(v('parameters.response_format.json_object', { quirks: { outputCap: 200 } })).toBe('honoured');
    expect(v('parameters.response_format.json_schema', { quirks: { runaway: true } })).toBe('inconclusive');
    expect(v('parameters.response_format.json_schema', { quirks: { jsonSchemaAsJsonMode: true } })).toBe('ignored');
    expect(v('parameters.response_format.json_object', { quirks: { jsonSchemaAsJsonMode: true } })).toBe('honoured');
  });

  it('leave to the profile what a fixed answer’s text decides, and call inconclusive what a model that follows nothing cannot show', () => {
    const fixed = row({ quirks: { fixedAnswer: 'OK' } });
    for (const probe of ['parameters.max_tokens', 'parameters.stop', 'parameters.stop_many', 'parameters.response_format.json_object', 'streaming.buffered']) expect(fixed[probe], probe).toBeUndefined();
    for (const probe of ['parameters.temperature', 'parameters.top_p', 'parameters.seed', 'roles.system', 'roles.history', 'roles.tool_result']) expect(fixed[probe], probe).toBe('inconclusive');
    expect(fixed).toMatchObject({ 'parameters.n': 'honoured', 'parameters.tools': 'honoured', 'roles.name': 'accepted', 'chat.basic': 'pass' });
    // The key echoed into every prose answer moves its end.
    const echoed = row({}, { echoKey: true });
    expect(echoed['parameters.max_tokens']).toBeUndefined();
    expect(echoed['parameters.stop']).toBeUndefined();
    expect(echoed['parameters.n']).toBe('honoured');
  });

  it('never call temperature ignored, and leave to the profile what a sampler’s luck decides', () => {
    expect(v('parameters.temperature', { features: { temperature: 'ignore' } })).toBe('inconclusive');
    expect(v('parameters.temperature', { features: { temperature: { reject: { message: 'only 1', allow: [1] } } } })).toBe('rejected');
    expect(v('parameters.temperature', { quirks: { randomAtZero: true } })).toBeUndefined();
    expect(v('parameters.top_p', { quirks: { randomAtZero: true } })).toBe('honoured');
    for (const probe of ['parameters.temperature', 'parameters.top_p', 'parameters.seed']) expect(v(probe, { features: { temperature: 'ignore' }, quirks: { favourite: 0.8 } }), probe).toBeUndefined();
  });

  it('call top_p and seed ignored only where greedy decoding repeats (the positive control)', () => {
    expect(v('parameters.top_p', { features: { top_p: 'ignore' } })).toBe('ignored');
    expect(v('parameters.top_p', { features: { top_p: 'ignore', temperature: 'ignore' } })).toBe('inconclusive');
    expect(v('parameters.seed', { features: { seed: 'ignore' }, quirks: { randomAtZero: true } })).toBe('inconclusive');
    // The samples without the parameter are drawn at temperature 1: refused, there is no variety to compare.
    expect(v('parameters.seed', { features: { temperature: reject() } })).toBe('inconclusive');
    expect(v('parameters.seed', { features: { temperature: { reject: { message: 'only 1', allow: [1] } } } })).toBe('honoured');
  });

  it('refuse five stop strings on a server that takes four, whatever the model does with one', () => {
    expect(v('parameters.stop_many', {}, { stopLimit: 4 })).toBe('rejected');
    expect(v('parameters.stop_many', { features: { stop: 'ignore' } }, { stopLimit: 4 })).toBe('rejected');
    expect(v('parameters.stop_many', {}, { stopLimit: 5 })).toBe('honoured');
    expect(v('parameters.stop', {}, { stopLimit: 4 })).toBe('honoured');
    expect(v('parameters.stop', { quirks: { keepStop: true } })).toBe('honoured');
  });

  it('judge tools and what steers them only where the model makes calls to read', () => {
    expect(v('parameters.tools', { quirks: { toolCallsAsText: true } })).toBe('ignored');
    expect(v('parameters.tools', { quirks: { callsOnlyWhenForced: true } })).toBe('inconclusive');
    for (const probe of ['parameters.tool_choice.required', 'parameters.tool_choice.none', 'parameters.tool_choice.named', 'parameters.parallel_tool_calls']) {
      expect(v(probe, { features: { tools: 'ignore' } }), probe).toBe('inconclusive');
      expect(v(probe, { features: { tools: reject() } }), probe).toBe('inconclusive');
    }
    // Refused in its own name, even where the tools are dropped; tools refused first name themselves.
    expect(v('parameters.tool_choice.none', { features: { tools: 'ignore', tool_choice: reject() } })).toBe('rejected');
    expect(v('parameters.tool_choice.none', { features: { tools: reject(), tool_choice: reject() } })).toBe('inconclusive');
    expect(v('parameters.parallel_tool_calls', { features: { parallel_tool_calls: reject() } })).toBe('rejected');
    expect(v('parameters.tool_choice.required', { features: { tool_choice: 'ignore' } })).toBe('ignored');
    expect(row({ quirks: { alwaysCallTools: true } })).toMatchObject({ 'parameters.tool_choice.required': 'inconclusive', 'parameters.tool_choice.named': 'inconclusive', 'parameters.tool_choice.none': 'honoured' });
    expect(row({ quirks: { callsOnlyWhenForced: true } })).toMatchObject({ 'parameters.tool_choice.required': 'honoured', 'parameters.tool_choice.none': 'inconclusive', 'parameters.parallel_tool_calls': 'inconclusive' });
    expect(row({ quirks: { toolCallsAsText: true } })).toMatchObject({ 'parameters.tool_choice.required': 'ignored', 'parameters.tool_choice.named': 'ignored', 'parameters.tool_choice.none': 'inconclusive', 'parameters.parallel_tool_calls': 'inconclusive' });
    expect(v('parameters.tool_choice.none', { quirks: { chattyWithoutCall: true } })).toBe('honoured');
  });

  it('accept what is not refused: a stream nobody asked for is an answer, an error body in a 200 is not', () => {
    for (const probe of ['parameters.presence_penalty', 'parameters.frequency_penalty', 'parameters.logit_bias', 'parameters.user', 'parameters.metadata', 'parameters.reasoning_effort']) {
      const key = probe.slice('parameters.'.length);
      expect(v(probe), probe).toBe('accepted');
      expect(v(probe, { features: { [key]: reject() } }), probe).toBe('rejected');
      expect(v(probe, { features: { [key]: 'ignore' } }), probe).toBe('accepted');
      expect(v(probe, { quirks: { streamByDefault: true } }), probe).toBe('accepted');
      expect(v(probe, { quirks: { errorIn200: true } }), probe).toBe('inconclusive');
    }
    expect(v('parameters.stream_options_without_stream', {}, { streamOptionsNeedStream: true })).toBe('rejected');
    expect(v('parameters.stream_options_without_stream', { features: { stream_options: reject() } })).toBe('rejected');
    // The usage stream then goes refused as well.
    expect(row({ features: { stream_options: reject() } })).toMatchObject({ 'streaming.usage': 'fail', 'streaming.integrity': 'inconclusive' });
  });

  it('take a message form’s verdict from its role feature, through every feature its messages use', () => {
    const forms: [Record<string, unknown>, Record<string, Verdict>][] = [
      [{ system: reject() }, { 'roles.system': 'rejected', 'roles.system_parts': 'rejected', 'roles.developer': 'honoured' }],
      [{ system: 'ignore' }, { 'roles.system': 'ignored', 'roles.system_parts': 'ignored' }],
      [{ developer: 'ignore' }, { 'roles.developer': 'ignored' }],
      // The instruction is the system message's second part, the image the user message's second.
      [{ content_parts: 'ignore' }, { 'roles.content_parts': 'ignored', 'roles.system_parts': 'ignored', 'roles.image': 'ignored', 'roles.system': 'honoured' }],
      [{ content_parts: reject() }, { 'roles.content_parts': 'rejected', 'roles.system_parts': 'rejected', 'roles.image': 'rejected' }],
      [{ image: 'ignore' }, { 'roles.image': 'ignored', 'roles.content_parts': 'honoured' }],
      [{ history: reject() }, { 'roles.history': 'rejected', 'roles.tool_result': 'rejected', 'roles.empty_content': 'rejected', 'roles.assistant_prefill': 'accepted' }],
      // Dropping the history still hands the model the tool's result, the last message.
      [{ history: 'ignore' }, { 'roles.history': 'ignored', 'roles.tool_result': 'honoured', 'roles.empty_content': 'accepted' }],
      // Dropping the result but not the call: the model calls again, and a call has no words to judge.
      [{ tool: 'ignore' }, { 'roles.tool_result': 'inconclusive' }],
      [{ prefill: reject(), name: reject(), consecutive_user: reject() }, { 'roles.assistant_prefill': 'rejected', 'roles.name': 'rejected', 'roles.consecutive_user': 'rejected' }],
      [{ prefill: 'ignore', empty_content: reject() }, { 'roles.assistant_prefill': 'accepted', 'roles.empty_content': 'rejected' }],
      [{ name: { error200: 'upstream failed' } }, { 'roles.name': 'inconclusive' }],
    ];
    for (const [roles, want] of forms) expect(row({ roles }), JSON.stringify(roles)).toMatchObject(want);
    expect(v('roles.tool_result', { roles: { tool: 'ignore' }, features: { tools: 'ignore' } })).toBe('ignored');
    expect(v('roles.tool_result', { features: { tools: reject() } })).toBe('inconclusive');
  });

  it('call inconclusive what a weak model cannot recall, but judge the instructions it follows', () => {
    const weak = row({ quirks: { weakRecall: true } });
    for (const probe of ['roles.history', 'roles.content_parts', 'roles.image', 'roles.tool_result']) expect(weak[probe], probe).toBe('inconclusive');
    expect(weak).toMatchObject({ 'roles.system': 'honoured', 'roles.developer': 'honoured', 'roles.system_parts': 'honoured' });
  });

  it('judge an answer hidden in reasoning_content: no text for what reads it, the limits read from the finish', () => {
    const empty = row({ quirks: { emptyContent: true } });
    expect(empty).toMatchObject({
      'streaming.basic': 'fail',
      'streaming.buffered': 'inconclusive',
      'parameters.temperature': 'inconclusive',
      'parameters.stop': 'inconclusive',
      'roles.system': 'inconclusive',
      'parameters.max_tokens': 'honoured',
      'parameters.n': 'honoured',
      'reasoning.field': 'warn',
      'reasoning.stream': 'pass',
      'reasoning.usage': 'warn',
      'reasoning.effort': 'inconclusive',
      'reasoning.echo': 'accepted',
    });
  });

  it('judge a reasoning model by where it puts its reasoning, how it counts it and what it takes', () => {
    const r = (reasoning: Record<string, unknown>, extra: ModelSpec = {}) => row({ ...extra, quirks: { reasoning } });
    expect(r({})).toMatchObject({ 'reasoning.field': 'pass', 'reasoning.stream': 'pass', 'reasoning.usage': 'pass', 'reasoning.effort': 'honoured', 'reasoning.echo': 'accepted' });
    expect(r({ place: 'think' })['reasoning.field']).toBe('warn');
    expect(r({ place: 'hidden' })['reasoning.stream']).toBe('pass');
    expect(r({ place: 'hidden', streamPlace: 'reasoning' })['reasoning.stream']).toBe('pass');
    expect(r({ streamPlace: 'none' })['reasoning.stream']).toBe('warn');
    expect(r({ streamPlace: 'reasoning' })['reasoning.stream']).toBe('warn');
    expect(r({ usage: 'none' })['reasoning.usage']).toBe('warn');
    expect(r({ usage: 'over' })['reasoning.usage']).toBe('fail');
    expect(r({ effort: 'ignore' })['reasoning.effort']).toBe('inconclusive');
    expect(r({ echo: 'reject' })['reasoning.echo']).toBe('rejected');
    expect(r({}, { features: { reasoning_effort: reject() } })).toMatchObject({ 'reasoning.effort': 'rejected', 'parameters.reasoning_effort': 'rejected' });
    // <think> on one side only: the stream's text and the answer's differ by the thinking.
    expect(r({ place: 'think', streamPlace: 'reasoning_content' })).toMatchObject({ 'streaming.integrity': 'inconclusive', 'parameters.stop': undefined });
    expect(r({ place: 'think' })).toMatchObject({ 'streaming.integrity': 'pass', 'parameters.stop': 'honoured' });
  });

  it('leave to the profile what reasoning that fills the server’s default limit makes of short answers', () => {
    const capped = row({ quirks: { reasoning: { tokens: 64 }, defaultLimit: 32 } });
    expect(capped).toMatchObject({ 'chat.basic': 'warn', 'chat.finish_reason': 'warn', 'reasoning.field': 'pass', 'parameters.n': 'honoured' });
    for (const probe of ['streaming.basic', 'parameters.temperature', 'parameters.stop', 'parameters.logprobs', 'parameters.tool_choice.none', 'roles.system']) expect(capped[probe], probe).toBeUndefined();
    // Room enough: the reasoning ends inside the default limit.
    expect(row({ quirks: { reasoning: { tokens: 6 }, defaultLimit: 32 } })['roles.system']).toBe('honoured');
  });

  it('judge billing only where the server has a meter, and nothing where nothing is charged', () => {
    const meter = { meter: { kind: 'new-api' } };
    expect(v('billing.usage')).toBeUndefined();
    expect(row({}, meter)).toMatchObject({ 'billing.failed_call': 'pass', 'billing.stream': 'pass', 'billing.usage': 'pass' });
    expect(v('billing.failed_call', { quirks: { billing: { failures: 'bill' } } }, meter)).toBe('fail');
    expect(v('billing.stream', { quirks: { billing: { stream: 'free' } } }, meter)).toBe('fail');
    expect(v('billing.stream', { quirks: { billing: { stream: 'double' } } }, meter)).toBe('fail');
    expect(v('billing.usage', { quirks: { billing: { byLimit: true } } }, meter)).toBe('fail');
    expect(v('billing.usage', { quirks: { usageInflate: 3 } }, meter)).toBe('warn');
    expect(v('billing.usage', { quirks: { billing: { prompt: 0, completion: 0, perCall: 500 } } }, meter)).toBe('pass');
    expect(new Set(['billing.failed_call', 'billing.stream', 'billing.usage'].map((p) => v(p, { quirks: { billing: { prompt: 0, completion: 0 } } }, meter)))).toEqual(new Set(['inconclusive']));
    // Usage unread: nothing to weigh a charge against.
    expect(v('billing.usage', { quirks: { omitUsage: true } }, meter)).toBe('inconclusive');
    expect(v('billing.stream', { quirks: { streamByDefault: true } }, meter)).toBe('inconclusive');
    // A meter that lags or drifts: how the reads fall decides.
    expect(v('billing.usage', {}, { meter: { kind: 'new-api', drift: 10 } })).toBeUndefined();
    // A meter that writes charges late changes no verdict: the billing set waits for them.
    const late = { meter: { kind: 'new-api', lateMs: 500 } };
    expect(row({}, late)).toMatchObject({ 'billing.failed_call': 'pass', 'billing.stream': 'pass', 'billing.usage': 'pass' });
    expect(v('billing.failed_call', { quirks: { billing: { failures: 'bill' } } }, late)).toBe('fail');
  });

  it('judge usage by the tokenizer a model counts like, and what it adds to a prompt or to the count', () => {
    const usage = (model: ModelSpec) => Object.fromEntries(['usage.tokenizer', 'usage.prompt_overhead', 'usage.completion', 'usage.cache'].map((p) => [p, v(p, model)]));
    expect(usage({ quirks: { tokenizer: 'qwen2' } })).toEqual({ 'usage.tokenizer': 'pass', 'usage.prompt_overhead': 'pass', 'usage.completion': 'pass', 'usage.cache': 'pass' });
    // The name claims one family, the count is another's.
    expect(v('usage.tokenizer', { id: 'llama-3.1-8b-instruct', quirks: { tokenizer: 'cl100k' } })).toBe('warn');
    expect(v('usage.tokenizer', { id: 'llama-3.1-8b-instruct', quirks: { tokenizer: 'llama3' } })).toBe('pass');
    expect(v('usage.tokenizer', { id: 'qwen2.5-7b-instruct' })).toBe('inconclusive');
    // Injected into every request: fail; a default prompt the client's system message replaces: pass, unless
    // that message is dropped (the default stays: the same as injected) or refused (no control).
    expect(v('usage.prompt_overhead', { quirks: { hiddenPrompt: 400 } })).toBe('fail');
    expect(v('usage.prompt_overhead', { quirks: { tokenizer: 'o200k', hiddenPrompt: 400 } })).toBe('fail');
    expect(v('usage.prompt_overhead', { quirks: { defaultPrompt: 300 } })).toBe('pass');
    expect(v('usage.prompt_overhead', { quirks: { defaultPrompt: 300 }, roles: { system: 'ignore' } })).toBe('fail');
    expect(v('usage.prompt_overhead', { quirks: { defaultPrompt: 300 }, roles: { system: reject() } })).toBe('inconclusive');
    expect(v('usage.prompt_overhead', { quirks: { hiddenPrompt: 120 } })).toBeUndefined();
    // Inflated completion counts warn; without a named tokenizer the answer is not counted.
    expect(v('usage.completion', { quirks: { tokenizer: 'gemma3', usageInflate: 3 } })).toBe('warn');
    expect(v('usage.completion', { quirks: { usageInflate: 3 } })).toBe('inconclusive');
    expect(v('usage.completion', { quirks: { tokenizer: 'gemma3', fixedAnswer: 'OK' } })).toBe('inconclusive');
    expect(v('usage.completion', { quirks: { tokenizer: 'o200k', reasoning: { tokens: 6 } } })).toBe('pass');
    expect(v('usage.completion', { quirks: { tokenizer: 'o200k', reasoning: { tokens: 6, usage: 'none' } } })).toBe('inconclusive');
    expect(v('usage.completion', { quirks: { tokenizer: 'o200k', reasoning: { tokens: 6, place: 'think' } } })).toBe('inconclusive');
    // A cache warns; every answer the same (a fixed answer) tells nothing; a peaked sampler's luck decides.
    expect(v('usage.cache', { quirks: { cache: true } })).toBe('warn');
    expect(v('usage.cache', { quirks: { fixedAnswer: 'OK' } })).toBe('inconclusive');
    expect(v('usage.cache', { quirks: { favourite: 0.8 } })).toBeUndefined();
    // No usage, or no answer to read: inconclusive throughout.
    for (const quirks of [{ tokenizer: 'qwen2', omitUsage: true }, { tokenizer: 'qwen2', errorIn200: true }, { tokenizer: 'qwen2', streamByDefault: true }]) {
      expect(new Set(['usage.tokenizer', 'usage.prompt_overhead', 'usage.completion'].map((p) => v(p, { quirks })))).toEqual(new Set(['inconclusive']));
    }
    expect(v('usage.cache', { quirks: { errorIn200: true } })).toBe('inconclusive');
  });

  it('fingerprint a model at temperature 0: one source passes, a round robin of weights fails the mix test, a sampling route is undecided', () => {
    const id = (model: ModelSpec) => [v('identity.fingerprint', model), v('identity.mixed_backends', model)];
    expect(id({})).toEqual(['pass', 'pass']);
    expect(id({ quirks: { weights: 'a', quantized: 0.2 } })).toEqual(['pass', 'pass']);
    // Logprobs refused, ignored or failed in a 200: answers only, still one source.
    for (const logprobs of ['ignore', reject(), { error200: 'no' }]) expect(id({ features: { logprobs } })).toEqual(['pass', 'pass']);
    // Two weights in turn: two groups of logprobs (a mix, no one spread to keep); a quantized twin too.
    expect(id({ quirks: { roundRobin: [{ weights: 'a' }, { weights: 'b' }] } })).toEqual(['inconclusive', 'fail']);
    expect(id({ quirks: { roundRobin: [{ weights: 'a' }, { weights: 'a', quantized: 0.2 }] } })).toEqual(['inconclusive', 'fail']);
    // Answers only: two answers are a mix only when each backend names itself; a twin answers alike.
    expect(id({ features: { logprobs: 'ignore' }, quirks: { roundRobin: [{ weights: 'a' }, { weights: 'b' }] } })).toEqual(['warn', 'inconclusive']);
    expect(id({ features: { logprobs: 'ignore' }, quirks: { roundRobin: [{ weights: 'a' }, { weights: 'b' }], systemFingerprint: true } })).toEqual(['inconclusive', 'fail']);
    expect(id({ features: { logprobs: 'ignore' }, quirks: { roundRobin: [{ weights: 'a' }, { weights: 'a', quantized: 0.2 }] } })).toEqual(['pass', 'pass']);
    // One model in two configurations: the content is one source, system_fingerprint differs (warn, never fail).
    expect(id({ quirks: { roundRobin: [{ weights: 'a', fingerprint: 'fp_1' }, { weights: 'a', fingerprint: 'fp_2' }] } })).toEqual(['pass', 'warn']);
    // Temperature dropped, or sampling anyway: its own spread (warn), a mix undecidable; a cache repeats itself.
    expect(id({ features: { temperature: 'ignore' } })).toEqual(['warn', 'inconclusive']);
    expect(id({ quirks: { randomAtZero: true } })).toEqual(['warn', 'inconclusive']);
    expect(id({ quirks: { randomAtZero: true, cache: true } })).toEqual(['pass', 'pass']);
    // No answer to read: temperature 0 refused, an error in a 200, a stream, reasoning that fills the limit.
    for (const model of [{ features: { temperature: { reject: { message: 'only 1', allow: [1] } } } }, { quirks: { errorIn200: true } }, { quirks: { streamByDefault: true } }, { quirks: { emptyContent: true } }, { quirks: { reasoning: { tokens: 300 }, defaultLimit: 256 } }]) {
      expect(id(model), JSON.stringify(model)).toEqual(['inconclusive', 'inconclusive']);
    }
  });

  it('leave the contrasts and samples of a model behind a response cache inconclusive: a replay is one sample', () => {
    const r = row({ quirks: { cache: true } });
    for (const p of ['parameters.temperature', 'parameters.top_p', 'parameters.seed', 'parameters.response_format.json_object', 'parameters.tool_choice.required', 'parameters.tool_choice.none', 'parameters.tool_choice.named', 'parameters.parallel_tool_calls']) {
      expect(r[p], p).toBe('inconclusive');
    }
    expect(r).toMatchObject({ 'parameters.response_format.json_schema': 'honoured', 'parameters.stop': 'honoured', 'parameters.tools': 'honoured' });
  });

  it('derive the endpoint probes from the server’s settings', () => {
    expect(['auth.missing_key', 'auth.bad_key', 'auth.no_bearer'].map((p) => endpoint(p))).toEqual(['pass', 'pass', 'pass']);
    expect(['auth.missing_key', 'auth.bad_key', 'auth.no_bearer'].map((p) => endpoint(p, { auth: 'vllm' }))).toEqual(['warn', 'warn', 'warn']);
    expect(['auth.missing_key', 'auth.bad_key', 'auth.no_bearer'].map((p) => endpoint(p, { auth: 'broken' }))).toEqual(['fail', 'fail', 'fail']);
    expect(['auth.missing_key', 'auth.bad_key', 'auth.no_bearer'].map((p) => endpoint(p, { auth: 'none' }))).toEqual(['warn', 'warn', 'inconclusive']);
    expect(endpoint('auth.bad_key', { errorPadding: DEFAULT_MAX_BODY_BYTES + 1 })).toBe('inconclusive');
    expect(endpoint('models.list', { modelList: { duplicateFirst: true } })).toBe('fail');
    expect(endpoint('models.list', { modelList: { omitCreated: true } })).toBe('warn');
    expect(endpoint('errors.unknown_model')).toBe('pass');
    expect(endpoint('errors.unknown_model', { errorStyle: 'new-api' })).toBe('pass');
    expect(endpoint('errors.unknown_model', { unknownModel: 'new-api' })).toBe('fail');
    expect(endpoint('errors.unknown_model', { unknownModel: 'substitute' })).toBe('fail');
    expect(endpoint('errors.unknown_model', { errorStyle: 'fastapi' })).toBe('warn');
  });
});

describe('the expectations of a profile', () => {
  const KEY = (probe: string) => `m ${probe}`;

  it('take a cell from the profile only where its rule cannot say', () => {
    const p = profileOf({ quirks: { fixedAnswer: 'OK' }, expect: { 'parameters.max_tokens': 'inconclusive', 'parameters.max_completion_tokens': 'inconclusive', 'parameters.stop': 'inconclusive', 'parameters.stop_many': 'inconclusive', 'parameters.response_format.json_object': 'honoured', 'parameters.response_format.json_schema': 'honoured', 'streaming.buffered': 'inconclusive' } });
    const cells = expectations(p, ENDPOINT);
    expect(cells[KEY('parameters.stop')]).toBe('inconclusive');
    expect(cells[KEY('parameters.temperature')]).toBe('inconclusive');
    expect(cells[`${ENDPOINT} auth.bad_key`]).toBe('pass');
  });

  it('refuse a cell neither decides, a declared verdict a rule already gives, and a declared probe that does not run', () => {
    expect(() => expectations(profileOf({ quirks: { fixedAnswer: 'OK' } }), ENDPOINT)).toThrow(Undecided);
    expect(() => expectations(profileOf({ quirks: { fixedAnswer: 'OK' } }), ENDPOINT)).toThrow(/m parameters.stop: its rule cannot say/);
    expect(() => expectations(profileOf({ expect: { 'chat.basic': 'pass' } }), ENDPOINT)).toThrow(/m chat.basic: declared pass, but its rule already says pass/);
    expect(() => expectations(profileOf({ expect: { 'billing.usage': 'pass' } }), ENDPOINT)).toThrow(/m billing.usage: declared, but no such probe runs here/);
    expect(() => expectations(profileOf({}, {}, { expect: { 'models.list': 'pass' } }), ENDPOINT)).toThrow(`${ENDPOINT} models.list: declared pass`);
  });

  it('leave an unlisted model out: the oracle sees no row for it', () => {
    const p = Profile.parse({ name: 'x', description: 'x', models: [{ id: 'a' }, { id: 'hidden', listed: false, quirks: { fixedAnswer: 'OK' } }] });
    expect(Object.keys(expectations(p, ENDPOINT)).some((k) => k.startsWith('hidden '))).toBe(false);
  });

  it.each(PROFILE_NAMES.filter((n) => loadProfile(n).server.mode === 'api'))('decide every cell of the bundled profile %s', (name) => {
    expect(() => expectations(loadProfile(name), ENDPOINT)).not.toThrow();
  });
});
