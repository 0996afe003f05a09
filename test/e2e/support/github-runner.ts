import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT, runCommand } from '../../helpers/cli.js';

/**
 * The part of the GitHub Actions runner our action and the README's workflows rely on, run locally:
 * `${{ }}` expressions over the contexts given (an unknown context or operator throws, so YAML that uses
 * more than this is noticed), `if:` conditions with the implicit success(), and `shell: bash` steps run as
 * the runner runs them (`bash --noprofile --norc -eo pipefail FILE`) with GITHUB_OUTPUT read back.
 */
export type Contexts = Record<string, unknown>;

function lookup(path: string, contexts: Contexts): unknown {
  const [head, ...rest] = path.split('.');
  if (!(head! in contexts)) throw new Error(`the expression reads the ${head} context, which is not given here`);
  let value: unknown = contexts[head!];
  for (const key of rest) value = value == null ? undefined : (value as Record<string, unknown>)[key];
  return value;
}

const truthy = (v: unknown) => v !== '' && v !== false && v !== 0 && v != null;
const text = (v: unknown) => (v == null ? '' : String(v));

/** One expression: literals, context paths, ==, != (case-insensitive, as on GitHub), &&, ||, always(). */
export function evaluate(expression: string, contexts: Contexts): unknown {
  const or = expression.split('||');
  if (or.length > 1) {
    let last: unknown;
    for (const part of or) if (truthy((last = evaluate(part, contexts)))) return last;
    return last;
  }
  const and = expression.split('&&');
  if (and.length > 1) {
    let last: unknown;
    for (const part of and) if (!truthy((last = evaluate(part, contexts)))) return last;
    return last;
  }
  const compare = /^(.*?)(==|!=)(.*)$/s.exec(expression);
  if (compare) {
    const same = text(evaluate(compare[1]!, contexts)).toLowerCase() === text(evaluate(compare[3]!, contexts)).toLowerCase();
    return compare[2] === '==' ? same : !same;
  }
  const atom = expression.trim();
  if (atom === 'always()') return true;
  if (/^'.*'$/s.test(atom)) return atom.slice(1, -1).replace(/''/g, "'");
  if (/^\d+$/.test(atom)) return Number(atom);
  if (/^[A-Za-z_][\w-]*(\.[\w-]+)*$/.test(atom)) return lookup(atom, contexts);
  throw new Error(`expression not understood here: ${atom}`);
}

/** A string with its `${{ }}` expressions replaced. */
export function substitute(template: unknown, contexts: Contexts): string {
  return String(template ?? '').replace(/\$\{\{(.*?)\}\}/gs, (_, e: string) => text(evaluate(e, contexts)));
}

/** Whether a step or job with this `if:` runs, given whether an earlier step failed. */
export function runsIf(condition: unknown, contexts: Contexts, failedBefore: boolean): boolean {
  if (condition === undefined) return !failedBefore;
  const expression = String(condition).replace(/^\s*\$\{\{(.*)\}\}\s*$/s, '$1');
  // No status function: GitHub prefixes success().
  if (!/\b(always|failure|success|cancelled)\(\)/.test(expression) && failedBefore) return false;
  return truthy(evaluate(expression, contexts));
}

/** Reads the outputs a step appended to its GITHUB_OUTPUT file (name=value lines). */
export async function readOutputs(file: string): Promise<Record<string, string>> {
  const outputs: Record<string, string> = {};
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return outputs;
}

/** Runs a `shell: bash` step's script as the runner does, in `cwd`, with `env`. */
export async function runBashStep(script: string, env: Record<string, string>, cwd: string, scratch: string, n: number) {
  const file = join(scratch, `step-${n}.sh`);
  await writeFile(file, script);
  return runCommand('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], env, cwd);
}

/** The action's metadata, parsed. */
export async function loadAction(): Promise<{
  inputs: Record<string, { required?: boolean; default?: string; description: string }>;
  outputs: Record<string, { value: string }>;
  runs: { steps: Record<string, unknown>[] };
}> {
  return parse(await readFile(join(ROOT, 'action.yml'), 'utf8'));
}
