import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { Boundary, DECLARED_LIMITS, REPORT_LIMITS } from '../../src/boundary/boundary.js';
import { recordCalls, type HarWriter } from '../../src/report/har.js';
import { ENDPOINT, type Report } from '../../src/results/model.js';
import { parseJunit } from '../helpers/junit.js';
import { createRedactor, FRAGMENT_LENGTH, REDACTED } from '../../src/boundary/secrets.js';
import { clip, oneLine, showControls } from '../../src/text.js';
import { renderJunit } from '../../src/report/writers/junit.js';
import { junitProblems } from '../helpers/junit.js';
import { escapeText, renderMatrix } from '../../src/report/writers/markdown.js';
import { sampleReport } from '../helpers/report.js';

const KEY = 'sk-proj-Q7vT2mX9pL4wR8nK3jH6bF1cZ5yD0aE'; // 41 characters, like an OpenAI project key

/** Every run of FRAGMENT_LENGTH characters of the key still present in `text`. */
function fragmentsIn(text: string, key = KEY): string[] {
  const found: string[] = [];
  for (let i = 0; i + FRAGMENT_LENGTH <= key.length; i++) {
    const f = key.slice(i, i + FRAGMENT_LENGTH);
    if (text.includes(f)) found.push(f);
  }
  return found;
}

const escaped = (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

describe('redaction', () => {
  const { redact } = createRedactor([{ value: KEY, label: '$OPENAI_API_KEY' }]);

  it('removes the key whole, as one marker, in every encoding a server or a writer produces', () => {
    const forms = [KEY, JSON.stringify(KEY).slice(1, -1), encodeURIComponent(KEY), escaped(KEY), escaped(KEY).toUpperCase().replace(/\\U/g, '\\u')];
    for (const form of forms) {
      expect(redact(`before ${form} after`), form).toBe(`before ${REDACTED} after`);
    }
  });

  it('removes the key however a server writes it: mixed escapes, any case, percent or HTML encoded, invisible characters inside', () => {
    const every = (n: number, enc: (c: string) => string) => [...KEY].map((c, i) => (i % n === 0 ? enc(c) : c)).join('');
    const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0');
    const forms = {
      percentAll: [...KEY].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
      uEvery7: every(7, (c) => `\\u${hex(c)}`),
      uMixedCase: [...KEY].map((c, i) => `\\u${i % 2 ? hex(c).toUpperCase() : hex(c)}`).join(''),
      percentEvery7: every(7, (c) => `%${c.charCodeAt(0).toString(16)}`),
      htmlEntities: every(3, (c) => (c.charCodeAt(0) % 2 ? `&#${c.charCodeAt(0)};` : `&#x${c.charCodeAt(0).toString(16)};`)),
      softHyphens: [...KEY].join('\u00ad'),
      joiners: [...KEY].join('\u200d'),
      graphemeJoiners: [...KEY].join('\u034f'),
      lowerCase: KEY.toLowerCase(),
      upperCase: KEY.toUpperCase(),
    };
    for (const [name, form] of Object.entries(forms)) {
      expect(redact(`said ${form} here`), name).toBe(`said ${REDACTED} here`);
    }
  });

  it('finds every fragment in either case and through spaces, as a plain search of the lower-cased text without them does (seeded random texts; İ and K lower-case to letters a key has)', () => {
    let seed = 7;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const key = 'sk-Proj-Ab1Cd2Ef3Gh4Ik5Jm6';
    const lowKey = key.toLowerCase();
    const needles = Array.from({ length: lowKey.length - FRAGMENT_LENGTH + 1 }, (_, i) => lowKey.slice(i, i + FRAGMENT_LENGTH));
    /**
     * The plain way: every needle's every place in the lower-cased text read without its spaces (a secret is
     * searched through whitespace), spans merged (one code unit each way).
     */
    const plain = (text: string) => {
      const low = text.toLowerCase();
      if (low.length !== text.length) return undefined;
      const kept = [...low].flatMap((c, i) => (c === ' ' ? [] : [i]));
      const bare = kept.map((i) => low[i]).join('');
      const hit = new Uint8Array(text.length + 1);
      for (const n of needles) for (let at = bare.indexOf(n); at >= 0; at = bare.indexOf(n, at + 1)) hit.fill(1, kept[at]!, kept[at + FRAGMENT_LENGTH - 1]! + 1);
      let out = '';
      for (let i = 0; i < text.length; i++) if (!hit[i]) out += text[i];
      else if (i === 0 || !hit[i - 1]) out += REDACTED;
      return out;
    };
    const r = createRedactor([key]).redact;
    const alphabet = [...'abcdefghijkmnopsABCDEFGHIJKMNOPS0123456789-_ :"', 'K', 'é', 'İ'];
    let compared = 0;
    let found = 0;
    for (let t = 0; t < 3000; t++) {
      let text = '';
      while (text.length < 60) {
        if (rnd() < 0.05) {
          const at = Math.floor(rnd() * (key.length - FRAGMENT_LENGTH));
          text += [...key.slice(at, at + FRAGMENT_LENGTH + Math.floor(rnd() * 4))].map((c) => (rnd() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
        } else text += alphabet[Math.floor(rnd() * alphabet.length)];
      }
      const want = plain(text);
      if (want === undefined) continue; // İ: the plain search's positions shift; the shadow handles it
      compared++;
      if (want !== text) found++;
      expect(r(text), JSON.stringify(text)).toBe(want);
    }
    expect(compared).toBeGreaterThan(1000);
    expect(found).toBeGreaterThan(200);
    // The Kelvin sign is a k to a reader that lower-cases.
    expect(r('x sk-proj-ab1cd2ef3gh4i\u212a5jm6 y')).toBe(`x ${REDACTED} y`);
  });

  it('replaces whole escapes only, so rendered JSON and XML stay well-formed', () => {
    const key = 'sk-"quoted"&<amp>-1234567890';
    const r = createRedactor([key]).redact;
    const json = JSON.stringify({ a: `x ${key} y`, b: ['z', key] });
    expect(JSON.parse(r(json))).toEqual({ a: `x ${REDACTED} y`, b: ['z', REDACTED] });
    const xml = `<a title="${key.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}">t</a>`;
    expect(r(xml)).toBe(`<a title="${REDACTED}">t</a>`);
  });

  it('finds a key in a text of any size, across the pieces it is read in', () => {
    const big = `${'a'.repeat(256 * 1024 - 5)}${KEY}${'b'.repeat(300_000)}\u00ad${KEY.slice(0, 20)}`;
    const out = redact(big);
    expect(fragmentsIn(out)).toEqual([]);
    expect(out.split(REDACTED)).toHaveLength(3);
  });

  it('removes any cut of the key long enough to matter, at every cut position and every context length', () => {
    for (let context = 0; context <= 200; context++) {
      const pad = 'x'.repeat(context);
      for (let cut = FRAGMENT_LENGTH; cut <= KEY.length; cut++) {
        const prefix = redact(`${pad}${KEY.slice(0, cut)}`);
        const suffix = redact(`${KEY.slice(KEY.length - cut)}${pad}`);
        expect(fragmentsIn(prefix), `prefix ${cut} after ${context}`).toEqual([]);
        expect(fragmentsIn(suffix), `suffix ${cut} before ${context}`).toEqual([]);
        expect(prefix.startsWith(pad)).toBe(true);
      }
    }
  });

  it('finds a fragment spread over any number of invisible characters across the pieces a long text is read in', () => {
    const piece = 256 * 1024;
    const words = (n: number) => 'lorem ipsum, '.repeat(Math.ceil(n / 13)).slice(0, n);
    const spread = [...KEY.slice(0, 8)].join('\u200b'.repeat(200));
    const entities = [...KEY.slice(8, 16)].map((c) => `&#${c.charCodeAt(0)};`).join('&#8203;'.repeat(40));
    for (const form of [spread, entities]) {
      for (const before of [piece - form.length / 2, piece - 10, piece - form.length + 3, 2 * piece - form.length / 3]) {
        const text = `${words(before)}"${form}"${words(5000)}`;
        const out = redact(text);
        expect(out, `${form.slice(0, 12)} at ${before}`).toBe(`${words(before)}"${REDACTED}"${words(5000)}`);
      }
    }
  });

  it('removes a key split over stream deltas from each delta and from their concatenation', () => {
    const parts = [KEY.slice(0, 14), KEY.slice(14, 28), KEY.slice(28)];
    for (const part of parts) expect(redact(part)).toBe(REDACTED);
    expect(redact(parts.join(''))).toBe(REDACTED);
  });

  it('keeps the structure it writes in: JSON stays valid JSON, words next to the key stay whole', () => {
    const key = 'sk-"quoted\\back"slash-1234';
    const r = createRedactor([key]).redact;
    const json = JSON.stringify({ message: `bad key ${key} for index` });
    const out = r(json);
    expect(JSON.parse(out)).toEqual({ message: `bad key ${REDACTED} for index` });
  });

  it('finds the key in a JSON text quoted inside another (escaped quotes all around), plain or escaped', () => {
    for (const key of [KEY, 'path/like/key/0123456789', 'key-with-no-escape-012']) {
      const r = createRedactor([key]).redact;
      const inner = JSON.stringify({ messages: [{ role: 'user', content: `use ${key} now` }] });
      const outer = JSON.stringify({ request: { postData: { text: inner } }, again: JSON.stringify(inner) });
      // And once written with JSON's own escapes, which one decoding step undoes.
      const text = `${outer.slice(0, -1)},"note":"${escaped(key)}"}`;
      const out = r(text);
      const read = JSON.parse(out);
      expect(read.note, key).toBe(REDACTED);
      expect(fragmentsIn(read.request.postData.text, key), key).toEqual([]);
      expect(fragmentsIn(JSON.parse(read.again), key), key).toEqual([]);
      expect(read.request.postData.text, key).toBe(JSON.stringify({ messages: [{ role: 'user', content: `use ${REDACTED} now` }] }));
    }
  });

  it('removes every cut of a long key (160 characters, 153 needles) in one pass, at every position', () => {
    const long = `sk-proj-${'Zq8Wv3Nx5Kb2Ht7Jm4Rc9Fy6Ld1Ps0G'.repeat(5)}`.slice(0, 160);
    const r = createRedactor([long]).redact;
    for (let at = 0; at + FRAGMENT_LENGTH <= long.length; at += 7) {
      const cut = long.slice(at, at + FRAGMENT_LENGTH + (at % 13));
      expect(fragmentsIn(r(`{"a":"x${cut}y","b":1}`), long), `cut at ${at}`).toEqual([]);
    }
    expect(r(`${long} and ${long.toUpperCase()}`)).toBe(`${REDACTED} and ${REDACTED}`);
  });

  it('refuses secrets shorter than 8 characters as needles, naming them without their value', () => {
    const r = createRedactor([{ value: 'x', label: '$OPENAI_API_KEY' }, { value: '1', label: 'the value of --header X-Session-Id' }, { value: 'openai', label: 'h' }]);
    expect(r.refused).toEqual(['$OPENAI_API_KEY', 'the value of --header X-Session-Id', 'h'].map((label) => ({ label, why: 'short' })));
    const text = '{"index":1,"object":"list","owned_by":"openai","x":"y"}';
    expect(r.redact(text)).toBe(text);
  });

  it('is the identity without secrets', () => {
    expect(createRedactor([undefined, '']).redact('anything at all')).toBe('anything at all');
  });
});

describe('control characters and cuts', () => {
  it('shows controls, bidi overrides and lone surrogates as escapes, keeps tabs, line feeds and emoji', () => {
    const text = 'a\x1b[31mred\x1b]8;;http://e/\x07x\r\u202eb\u0000c\ud800d\te\nf 👩‍👩‍👧 é';
    expect(showControls(text)).toBe('a\\x1b[31mred\\x1b]8;;http://e/\\x07x\\x0d\\u202eb\\x00c\\ud800d\te\nf 👩‍👩‍👧 é');
    expect(oneLine('a\nb\tc\r\nd')).toBe('a\\nb\\tc\\x0d\\nd');
  });

  it('cuts without splitting a surrogate pair and says the cut is ours', () => {
    expect(clip('ab😀cd', 3)).toBe('ab… [4 more characters cut by chatprobe]');
    expect(clip('short', 10)).toBe('short');
  });
});

describe('Boundary', () => {
  const b = Boundary.of([{ value: KEY, label: 'key' }]);

  it('cleans a value whatever its depth: a 100,000-deep array from a server serialises', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const out = b.clean({ declared: deep }, DECLARED_LIMITS);
    expect(() => JSON.stringify(out)).not.toThrow();
    expect(JSON.stringify(out)).toContain('nested deeper than 6 levels');
  });

  it('caps what a server controls: items, strings, keys; a "__proto__" key stays a plain key', () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, 'v'.repeat(2000)]));
    const out = b.clean(JSON.parse(`{"__proto__":{"polluted":1},"m":${JSON.stringify(many)}}`), DECLARED_LIMITS) as Record<string, Record<string, string>>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(['__proto__', 'm']);
    expect(Object.keys(out.m!)).toHaveLength(DECLARED_LIMITS.items + 1);
    expect(out.m!.k0!.length).toBeLessThan(600);
  });

  it('cleans a short string it has cleaned before as it did, whatever the cap asked for', () => {
    const b = Boundary.of([KEY]);
    const fresh = () => Boundary.of([KEY]);
    const short = `k ${KEY.slice(0, 12)} \u001b[2J end`;
    expect(b.text(short, 10)).toBe(fresh().text(short, 10));
    expect(b.text(short, 200)).toBe(fresh().text(short, 200));
    expect(b.text(short, 10)).toBe(fresh().text(short, 10));
    // Past the strings it keeps, it cleans each one again, as well.
    for (let i = 0; i < 5000; i++) b.text(`s${i}`, 50);
    const late = `late ${KEY.slice(3, 20)}`;
    expect(b.text(late, 50)).toBe(fresh().text(late, 50));
    expect(b.text(late, 50)).not.toContain(KEY.slice(3, 11));
  });

  it('redacts keys and values of the report, and shows their controls', () => {
    const report = sampleReport();
    report.models[0]!.id = `m-${KEY}\x1b[2J`;
    report.results[0]!.model = report.models[0]!.id;
    report.results[0]!.observed = `echoed ${KEY.slice(0, 30)}`;
    report.models[0]!.declared = { [KEY]: KEY };
    const clean = b.report(report);
    const text = JSON.stringify(clean);
    expect(fragmentsIn(text)).toEqual([]);
    expect(clean.models[0]!.id).toBe(`m-${REDACTED}\\x1b[2J`);
    expect(clean.results[0]!.model).toBe(clean.models[0]!.id);
  });

  it('lets no line of terminal output start a workflow command, and keeps only our own colours', () => {
    const text =
      'ok\n::error title=x::injected\n  ::add-mask::abc\n\u00a0::error::nbsp\n\u3000\u2003::warning::wide\nsee ##[error]x\n' +
      '\x1b[32mgreen\x1b[39m \x1b]8;;http://e/\x07link \x1b[8mconcealed\x1b[0m\r\x1b[2Kforged line';
    const out = b.terminal(text);
    // What the runner sees after .NET's TrimStart, which trims every Unicode space.
    expect(out.split('\n').filter((l) => /^[\s\u0085]*::/.test(l))).toEqual([]);
    expect(out).not.toContain('##[');
    expect(out).toContain('\x1b[32mgreen\x1b[39m');
    expect(out).toContain('\\x1b]8;;http://e/\\x07link');
    expect(out).toContain('\\x1b[8mconcealed');
    expect(out).not.toContain('\r');
    expect(out).toContain('\\x0d\\x1b[2Kforged line');
  });
});

describe('model ids made unique once cleaned', () => {
  const b = Boundary.of([{ value: KEY, label: 'key' }]);
  const long = 'L'.repeat(REPORT_LIMITS.string);
  /** Listed ids that cleaning makes alike, in threes and twos, and one id that is a suffixed name already. */
  const LISTED = [
    `${long}-a`, `${long}-b`, `${long}-c`, // cut at the same character
    `x-${KEY}`, `x-${REDACTED}`, // redacted to the same
    'dup\r', 'dup\\x0d', // a control and the escape that shows it
    'dup\\x0d [1 of 2 ids alike once cleaned]', // what the first of those would be named
    'plain',
  ];
  const PROBES = ['chat.basic', 'parameters.max_tokens'];

  function collidingReport(): Report {
    const base = sampleReport();
    const cell = (model: string, probe: string) => ({ ...base.results[0]!, model, probe, evidence: [`${model.slice(-8)}-${probe}`] });
    return {
      ...base,
      models: LISTED.map((id) => ({ id, listed: true })),
      results: [...LISTED.flatMap((id) => PROBES.map((p) => cell(id, p))), cell(ENDPOINT, 'auth.missing_key')],
      shard: { index: 1, count: 1, allModels: [...LISTED] },
    };
  }

  it('gives each model its own id, said so by a suffix, within the string cap', () => {
    const clean = b.report(collidingReport());
    const ids = clean.models.map((m) => m.id);
    expect(new Set(ids).size).toBe(LISTED.length);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(REPORT_LIMITS.string);
    // Numbered in the order of the ids as listed ('[' before 's'), whatever order the server lists them in.
    expect(ids.slice(3)).toEqual([
      `x-${REDACTED} [2 of 2 ids alike once cleaned]`,
      `x-${REDACTED} [1 of 2 ids alike once cleaned]`,
      'dup\\x0d [1 of 2 ids alike once cleaned, 2]',
      'dup\\x0d [2 of 2 ids alike once cleaned]',
      'dup\\x0d [1 of 2 ids alike once cleaned]',
      'plain',
    ]);
    for (const [i, id] of ids.slice(0, 3).entries()) {
      expect(id.startsWith('LLL')).toBe(true);
      expect(id).toMatch(new RegExp(`… \\[\\d+ more characters cut by chatprobe\\] \\[${i + 1} of 3 ids alike once cleaned\\]$`));
    }
    expect(fragmentsIn(JSON.stringify(clean))).toEqual([]);
    // Every result, the shard's plan, and each model's cells are keyed by that id.
    for (const id of ids) expect(clean.results.filter((r) => r.model === id).map((r) => r.probe)).toEqual(PROBES);
    expect(clean.results.at(-1)!.model).toBe(ENDPOINT);
    expect(clean.shard!.allModels).toEqual(ids);
  });

  it('is the same id when cleaned again (repro, merge and compare clean the report they read)', () => {
    const clean = b.report(collidingReport());
    const again = new Boundary().report(clean);
    expect(again.models.map((m) => m.id)).toEqual(clean.models.map((m) => m.id));
    expect(again.results.map((r) => r.model)).toEqual(clean.results.map((r) => r.model));
  });

  it('junit.xml has one test case per cell', async () => {
    const report = b.report(collidingReport());
    const suites = (await parseJunit(renderJunit(report))).testsuites.testsuite;
    expect(suites.flatMap((s) => s.testcase ?? [])).toHaveLength(report.results.length);
  });

  it('trace.jsonl and exchanges.har name each call’s model as report.json does', () => {
    const boundary = Boundary.of([{ value: KEY, label: 'key' }]);
    const clean = boundary.report(collidingReport());
    const trace = boundary.trace(LISTED.map((model, i) => ({ id: `c${i}`, at: '', probe: 'chat.basic', model, method: 'POST', path: '/chat/completions', durationMs: 1, bytes: 0 })));
    expect(trace.map((r) => r.model)).toEqual(clean.models.map((m) => m.id));
    const lines: string[] = [];
    const record = recordCalls({ add: (json: string) => lines.push(json) } as unknown as HarWriter, boundary);
    for (const [i, model] of LISTED.entries()) {
      record({ callId: `c${i}`, at: '', probe: 'chat.basic', model, method: 'POST', url: 'http://h/', requestHeaders: {}, requestBody: undefined, status: 200, responseHeaders: {}, responseText: '', bytes: 0, durationMs: 1, ttftMs: undefined, events: undefined, cuts: [], error: undefined });
    }
    expect(lines.map((l) => JSON.parse(l)._model)).toEqual(clean.models.map((m) => m.id));
  });
});

describe('writers with hostile text', () => {
  const hostile = [
    'a\n::error title=x::injected',
    '::add-mask::abc',
    'a]]><testcase name="forged"/>]]>b',
    '\x1b[31mred\x1b[0m',
    '![x](http://127.0.0.1:9/track.png)',
    '<script>alert(1)</script>',
    'a|b',
    'see https://evil.example/x and www.evil.example and x@evil.example, $x^2$ `code` *em* [l](http://e)',
    'verify-your-key@evil.example or xmpp:a@evil.example/x',
  ];

  it('Markdown: server text renders as the text it is, with no image, link, HTML or formatting', () => {
    for (const text of hostile) {
      const html = micromark(`| a |\n|---|\n| ${escapeText(text)} |\n\n- ${escapeText(text)}`, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
      expect(html, text).not.toMatch(/<(img|a|script|em|code|strong|del)\b/);
      // One cell per row: a pipe in the text stays inside its cell.
      expect(html.match(/<td>/g), text).toHaveLength(1);
    }
  });

  it('JUnit: hostile model ids and texts neither forge a test case nor break the XML', async () => {
    const b = new Boundary();
    const report = sampleReport();
    report.models = hostile.map((id) => ({ id, listed: true }));
    report.results = hostile.map((id) => ({ ...sampleReport().results[0]!, model: id, observed: `${id} ${id}` }));
    const xml = renderJunit(b.report(report));
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase'].includes(n) }).parse(xml);
    expect(doc.testsuites.testsuite).toHaveLength(hostile.length);
    expect(doc.testsuites.testsuite.flatMap((s: { testcase: { name: string }[] }) => s.testcase.map((c) => c.name))).toEqual(hostile.map(() => 'chat.basic'));
    expect(await junitProblems(xml)).toEqual([]);
  });

  it('matrix.md of hostile ids keeps one column per model', () => {
    const report = sampleReport();
    report.models = hostile.map((id) => ({ id, listed: true }));
    report.results = [];
    const md = renderMatrix(new Boundary().report(report));
    const header = md.split('\n').find((l) => l.startsWith('| probe |'))!;
    expect(header.split(/(?<!\\)\|/).length - 2).toBe(2 + hostile.length);
    expect(md).not.toMatch(/^\s*::/m);
  });
});
