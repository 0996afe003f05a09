import { isObject } from '../wire/json.js';
import type { Finding, ModelEntry, ProbeResult, Verdict } from './model.js';

/**
 * Declared against observed. `GET /models` entries often declare what a model supports: OpenRouter's
 * `supported_parameters`, Ollama-style `capabilities` (a list, or an object of flags), OpenRouter's
 * `architecture.input_modalities`. Put beside the verdicts, a feature declared supported and observed
 * ignored or rejected is a warning; one observed honoured that a declaration list leaves out is a note.
 * Inconclusive and accepted cells claim nothing either way.
 */

/** The names each probe's feature goes by in a declaration: request parameters, capabilities, modalities. */
const DECLARED_AS: Record<string, { params?: string[]; capabilities?: string[]; modalities?: string[] }> = {
  'parameters.max_tokens': { params: ['max_tokens'] },
  'parameters.max_completion_tokens': { params: ['max_completion_tokens', 'max_tokens'] },
  'parameters.temperature': { params: ['temperature'] },
  'parameters.top_p': { params: ['top_p'] },
  'parameters.seed': { params: ['seed'] },
  'parameters.stop': { params: ['stop'] },
  'parameters.stop_many': { params: ['stop'] },
  'parameters.n': { params: ['n'] },
  'parameters.presence_penalty': { params: ['presence_penalty'] },
  'parameters.frequency_penalty': { params: ['frequency_penalty'] },
  'parameters.logprobs': { params: ['logprobs', 'top_logprobs'] },
  'parameters.logit_bias': { params: ['logit_bias'] },
  'parameters.response_format.json_object': { params: ['response_format'] },
  'parameters.response_format.json_schema': { params: ['structured_outputs', 'response_format'] },
  'parameters.tools': { params: ['tools'], capabilities: ['tools', 'function_calling'] },
  'parameters.tool_choice.required': { params: ['tool_choice'] },
  'parameters.tool_choice.none': { params: ['tool_choice'] },
  'parameters.tool_choice.named': { params: ['tool_choice'] },
  'parameters.parallel_tool_calls': { params: ['parallel_tool_calls'] },
  'parameters.reasoning_effort': { params: ['reasoning_effort', 'reasoning'] },
  'reasoning.effort': { params: ['reasoning_effort', 'reasoning'] },
  'roles.image': { capabilities: ['vision', 'image_input'], modalities: ['image'] },
};

interface Declarations {
  params?: { names: Set<string>; source: string };
  capabilities?: { names: Set<string>; source: string };
  modalities?: { names: Set<string>; source: string };
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);

/** What a /models entry's extra keys declare, in the shapes gateways use. */
export function declarationsOf(declared: Record<string, unknown> | undefined): Declarations {
  if (!declared) return {};
  const out: Declarations = {};
  const params = strings(declared.supported_parameters);
  if (params) out.params = { names: new Set(params.map((p) => p.toLowerCase())), source: 'supported_parameters' };
  const caps = declared.capabilities;
  const capList = strings(caps) ?? (isObject(caps) ? Object.entries(caps).filter(([, v]) => v === true).map(([k]) => k) : undefined);
  if (capList) out.capabilities = { names: new Set(capList.map((c) => c.toLowerCase())), source: 'capabilities' };
  const modalities = isObject(declared.architecture) ? strings(declared.architecture.input_modalities) : undefined;
  if (modalities) out.modalities = { names: new Set(modalities.map((m) => m.toLowerCase())), source: 'architecture.input_modalities' };
  return out;
}

/** The finding a cell gets from its model's declarations, or undefined when they say nothing about it. */
export function declaredFinding(probe: string, verdict: Verdict, d: Declarations): Finding | undefined {
  const names = DECLARED_AS[probe];
  if (!names) return undefined;
  const lists = (['params', 'capabilities', 'modalities'] as const).flatMap((k) => (names[k] && d[k] ? [{ wanted: names[k], list: d[k] }] : []));
  if (lists.length === 0) return undefined;
  const declaring = lists.find((l) => l.wanted.some((n) => l.list.names.has(n)));
  if (declaring && (verdict === 'ignored' || verdict === 'rejected')) {
    const name = declaring.wanted.find((n) => declaring.list.names.has(n))!;
    return { severity: 'warn', code: 'declared_not_observed', message: `GET /models declares ${name} (${declaring.list.source}), and it was ${verdict}` };
  }
  if (!declaring && verdict === 'honoured') {
    return { severity: 'info', code: 'observed_not_declared', message: `honoured, though GET /models does not declare it (${lists.map((l) => l.list.source).join(', ')} without ${names.params?.[0] ?? names.capabilities?.[0] ?? names.modalities?.[0]})` };
  }
  return undefined;
}

/** Each cell of a model with declarations, with the finding they give it added. */
export function compareDeclared(models: readonly ModelEntry[], results: readonly ProbeResult[]): ProbeResult[] {
  const byModel = new Map<string, Declarations>();
  for (const m of models) {
    const d = declarationsOf(m.declared);
    // A model that declares nothing gives no cell a finding: its cells are not looked at one by one.
    if (d.params || d.capabilities || d.modalities) byModel.set(m.id, d);
  }
  if (byModel.size === 0) return [...results];
  return results.map((r) => {
    const d = byModel.get(r.model);
    const f = d ? declaredFinding(r.probe, r.verdict, d) : undefined;
    return f ? { ...r, findings: [...r.findings, f] } : r;
  });
}
