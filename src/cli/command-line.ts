// The command line, read once by the commands' declarations (commands.ts): node:util's parseArgs splits it
// into tokens (`--name=value`, `-h`, `--`), and one walk over them types every value and says what is wrong
// in chatprobe's words. No argument parser library: --help is ours (help.ts), and so is every message.
import { parseArgs } from 'node:util';
import { expectedNumber, inRange } from '../config/range.js';
import { COMMANDS, type CommandSpec } from './commands.js';
import { camel } from './flags.js';

export interface CommandLine {
  /** The command the first argument names, else the default one. */
  command: CommandSpec;
  /** Whether the first argument named the command (a usage message then points at its own --help). */
  named: boolean;
  help: boolean;
  version: boolean;
  /**
   * By camelCase key: each flag given (a list flag's values, a number as a number), a flag's declared
   * default when it is not, and the positionals. Read as far as the line allows when it has a problem (a
   * one-value flag given twice: both values).
   */
  values: Record<string, unknown>;
  /** What is wrong with the line (exit 2, nothing started), or undefined. */
  problem: string | undefined;
}

/** A value as a message quotes it: whole up to 40 characters. */
const quoted = (v: string) => JSON.stringify(v.slice(0, 40));

/**
 * Reads `argv` (without node and the script) by the commands' declarations. What is refused, and why:
 * - an unknown flag or an argument the command does not take (named as typed; the word after an unknown
 *   flag is taken as its value and not shown: `--api-key sk-…` must not print the key);
 * - a flag without its value (last on the line, before another flag, `--baseline=`, or an empty string as an
 *   unset variable in a CI line gives): `--baseline "$FILE"` with FILE unset must not turn a gate off;
 * - a one-value flag given twice, a list with an empty piece, a number that is not one or out of its range;
 * - a missing positional or required flag.
 * Taken as well, as users have typed them: `--models a b` (a list flag takes the words after it), `--no-X`
 * and `--X=true|false` for a switch, a flag's camelCase spelling (`--baseUrl`, the config file's key).
 * After `--`, every word is a positional (`merge -- -dir`).
 */
export function readCommandLine(argv: readonly string[]): CommandLine {
  const named = COMMANDS.find((c) => c.name === argv[0]);
  const command = named ?? COMMANDS.find((c) => c.isDefault)!;
  const flags = command.options;
  /** Each spelling of a flag (kebab-case, camelCase) → its name. */
  const spellings = new Map<string, string>();
  for (const name of Object.keys(flags)) spellings.set(name, name).set(camel(name), name);
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } };
  for (const [spelling, name] of spellings) options[spelling] = { type: flags[name]!.type === 'boolean' ? 'boolean' : 'string' };
  const { tokens } = parseArgs({ args: named ? argv.slice(1) : [...argv], options, strict: false, allowPositionals: true, tokens: true });

  const values: Record<string, unknown> = {};
  /** The flags that take a value, as given: how often, and their values. */
  const given = new Map<string, { times: number; values: string[] }>();
  const positionals: { at: number; value: string }[] = [];
  const unknown: { at: number; shown: string }[] = [];
  let help = false;
  let version = false;
  /** The first problem with a value, and where on the line it is. */
  let bad: { at: number; text: string } | undefined;
  /** The token read now. */
  let at = 0;
  const refuse = (text: string) => void (bad ??= { at, text });
  /** What a word right after the last flag goes to: the list it extends, the switch it sets, the unknown flag it is the value of. */
  let taker: { list: string } | { switch: string } | 'unknown' | undefined;

  /** One value of a flag that takes one (`occurrence`: the flag itself, not a word after a list flag). */
  const give = (name: string, value: string | undefined, occurrence: boolean) => {
    const flag = flags[name]!;
    const entry = given.get(name) ?? { times: 0, values: [] };
    given.set(name, entry);
    if (occurrence) entry.times += 1;
    if (entry.times > 1 && !flag.many) refuse(`--${name} was given more than once (it takes one value)`);
    if (value === undefined || value.trim() === '') {
      refuse(`--${name} was given without a value`);
      return;
    }
    entry.values.push(value);
    if (flag.type !== 'number') return;
    const n = Number(value);
    if (flag.range ? !inRange(n, flag.range) : !Number.isFinite(n)) {
      refuse(`invalid --${name} ${Number.isFinite(n) ? String(n) : quoted(value)}: expected ${flag.range ? expectedNumber(flag.range) : 'a number'}`);
    }
  };

  for (const token of tokens) {
    at = token.index;
    if (token.kind === 'option-terminator') {
      taker = undefined;
      continue;
    }
    if (token.kind === 'positional') {
      const word = token.value;
      if (taker === 'unknown') taker = undefined;
      else if (taker && 'list' in taker) give(taker.list, word, false);
      else if (taker && (word === 'true' || word === 'false')) {
        values[taker.switch] = word === 'true';
        taker = undefined;
      } else {
        positionals.push({ at: token.index, value: word });
        taker = undefined;
      }
      continue;
    }
    taker = undefined;
    if (token.name === 'help' || token.name === 'version') {
      if (token.name === 'help') help = true;
      else version = true;
      continue;
    }
    const negated = !spellings.has(token.name) && token.name.startsWith('no-') && flags[spellings.get(token.name.slice(3)) ?? '']?.type === 'boolean';
    const name = spellings.get(negated ? token.name.slice(3) : token.name);
    if (name === undefined) {
      // As typed, without its value: `--bogus`, `--no-bogus`, `-z` of `-zq`.
      unknown.push({ at: token.index, shown: token.rawName });
      if (token.value === undefined) taker = 'unknown';
      continue;
    }
    const flag = flags[name]!;
    if (flag.type === 'boolean') {
      const value = token.value;
      if (value === undefined) {
        values[camel(name)] = !negated;
        if (!negated) taker = { switch: camel(name) };
      } else if (!negated && (value === 'true' || value === 'false')) values[camel(name)] = value === 'true';
      else refuse(`invalid ${token.rawName} ${quoted(value)}: expected no value, true or false`);
      continue;
    }
    // parseArgs gives a flag that takes a value the next word, whatever it is: one that is another flag
    // (not a negative number) means this one came without its value.
    const value = token.value;
    give(name, !token.inlineValue && value?.startsWith('-') && !/^-\d/.test(value) ? undefined : value, true);
    if (flag.many && !flag.repeated) taker = { list: name };
  }

  for (const [name, flag] of Object.entries(flags)) {
    const key = camel(name);
    const entry = given.get(name);
    // A one-value flag given twice keeps both values (the line is refused; the values say which secrets to hide).
    if (flag.type !== 'boolean' && entry) values[key] = flag.many || entry.values.length > 1 ? entry.values : flag.type === 'number' ? Number(entry.values[0]) : entry.values[0];
    else if (values[key] === undefined && flag.default !== undefined) values[key] = flag.default;
  }
  const declared = Object.entries(command.positionals ?? {});
  const missing: string[] = [];
  declared.forEach(([name, p], i) => {
    const taken = p.many ? positionals.slice(i) : positionals.slice(i, i + 1);
    if (taken.length === 0) missing.push(`<${name}${p.many ? '..' : ''}>`);
    else values[name] = p.many ? taken.map((t) => t.value) : taken[0]!.value;
  });
  if (!declared.at(-1)?.[1].many) for (const extra of positionals.slice(declared.length)) unknown.push({ at: extra.at, shown: extra.value });

  // The first problem on the line is said (all the unknown arguments, if it is one of them: a typo is seldom
  // alone), then what is missing from it.
  const required = Object.entries(flags).filter(([name, f]) => f.required && !given.has(name));
  const plural = (n: number) => (n > 1 ? 's' : '');
  unknown.sort((a, b) => a.at - b.at);
  const problem =
    bad && !(unknown.length && unknown[0]!.at <= bad.at)
      ? bad.text
      : unknown.length
        ? `unknown argument${plural(unknown.length)}: ${unknown.map((u) => u.shown).join(', ')}`
        : missing.length
          ? `missing argument${plural(missing.length)}: ${missing.join(', ')}`
          : required.length
            ? `missing required flag${plural(required.length)}: ${required.map(([name]) => `--${name}`).join(', ')}`
            : undefined;
  return { command, named: named !== undefined, help, version, values, problem };
}
