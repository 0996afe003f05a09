import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, note, warn } from '../../src/engine/verdicts.js';
import { isObject } from '../../src/wire/json.js';
import { formatDeviation, validateShape } from '../../src/wire/validate.js';
import { ENDPOINT, type Finding } from '../../src/results/model.js';

const STANDARD = new Set(['id', 'object', 'created', 'owned_by']);

export default defineProbe({
  id: 'models.list',
  area: 'models',
  kind: 'conformance',
  tier: 'quick',
  scope: 'target',
  requirement:
    'GET /models answers {object: "list", data: [{id, object: "model", created, owned_by}]} with unique, non-empty ids; extra keys are recorded, not failed.',
  verdicts: ['pass', 'warn', 'fail'],
  // Reads the discovery call.
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.listing();
    const findings: Finding[] = [];
    for (const d of validateShape('modelList', x.json).slice(0, 6)) {
      if (d.tier === 'lenient') findings.push(fail('schema', formatDeviation(d)));
      else findings.push((ctx.options.strict ? fail : warn)('schema_strict', formatDeviation(d)));
    }
    const data = isObject(x.json) && Array.isArray(x.json.data) ? x.json.data : [];
    const ids = data.map((m) => (isObject(m) ? m.id : undefined));
    const empty = ids.filter((id) => typeof id !== 'string' || id === '').length;
    if (empty > 0) findings.push(fail('empty_id', `${empty} entr${empty === 1 ? 'y' : 'ies'} without a non-empty string id`));
    // One pass with a Set: an indexOf per id is quadratic, and a gateway may list 100,000 models.
    const seen = new Set<unknown>();
    const dupes = [...new Set(ids.filter((id) => typeof id === 'string' && (seen.has(id) || (seen.add(id), false))))];
    if (dupes.length > 0) findings.push(fail('duplicate_id', `ids listed more than once: ${dupes.slice(0, 5).join(', ')}`));
    // The name chatprobe gives its endpoint row: such a model would be mixed into that row's cells.
    if (ids.includes(ENDPOINT)) findings.push(warn('reserved_id', `a model is listed as ${JSON.stringify(ENDPOINT)}, the name of chatprobe's endpoint row: it is not audited`));
    const extra = new Set<string>();
    for (const m of data) if (isObject(m)) for (const k of Object.keys(m)) if (!STANDARD.has(k)) extra.add(k);
    if (extra.size > 0) findings.push(note('extra_keys', `extra keys recorded per model in report.json: ${[...extra].join(', ')}`));
    return conformance(findings, `${data.length} models listed, ids unique`);
  },
});
