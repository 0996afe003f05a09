import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, note, unjudgeable, warn } from '../../src/engine/verdicts.js';
import { isObject } from '../../src/wire/json.js';
import { formatDeviation, validateShape } from '../../src/wire/validate.js';
import type { Finding } from '../../src/results/model.js';

const KNOWN = new Set(['id', 'object', 'created', 'model', 'choices', 'usage', 'system_fingerprint', 'service_tier']);

export default defineProbe({
  id: 'chat.schema',
  area: 'chat',
  kind: 'conformance',
  tier: 'quick',
  requirement:
    'A non-stream answer has the chat.completion shape: id, object, created, model, choices[{index, message{role, content}, finish_reason}] (MUST), and every field the OpenAI reference requires (SHOULD).',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    const unusable = unjudgeable(x, 'a 2xx chat completion');
    if (unusable) return unusable;
    if (x.json === undefined) return conformance([fail('not_json', `expected a JSON body, got ${x.contentType || 'no content type'}`)], '');
    const findings: Finding[] = [];
    if (x.bom) findings.push(warn('bom', 'the JSON body starts with a UTF-8 byte-order mark: clients that decode with fetch skip it, JSON.parse on the raw text fails'));
    for (const cut of x.cuts) findings.push(note('cut_by_chatprobe', cut));
    if (!x.contentType.includes('application/json')) findings.push(warn('content_type', `expected content-type application/json, got "${x.contentType || 'none'}"`));
    for (const d of validateShape('completion', x.json).slice(0, 6)) {
      if (d.tier === 'lenient') findings.push(fail('schema', formatDeviation(d)));
      else findings.push((ctx.options.strict ? fail : warn)('schema_strict', formatDeviation(d)));
    }
    if (isObject(x.json)) {
      const extra = Object.keys(x.json).filter((k) => !KNOWN.has(k));
      if (extra.length > 0) findings.push(note('extra_keys', `keys beyond the OpenAI shape: ${extra.slice(0, 10).join(', ')}${extra.length > 10 ? ` and ${extra.length - 10} more` : ''}`));
    }
    return conformance(findings, 'chat.completion shape, every required field present');
  },
});
