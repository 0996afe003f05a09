import type { Options, PositionalOptions } from 'yargs';
import { wrapText as wrap } from '../boundary/text.js';
import { COMMANDS, ENVIRONMENT, EXIT_CODES, USAGE, type CommandSpec } from './commands.js';

/** The help lines' width: the terminal's, between 60 and 110 columns (100 when not a terminal). */
export function helpWidth(columns: number | undefined): number {
  return Math.max(60, Math.min(110, columns ?? 100));
}


/** Rows of two columns: the left padded to a common width, the right wrapped beside it. */
function table(rows: [string, string][], width: number): string[] {
  const left = Math.min(Math.max(...rows.map(([l]) => l.length)) + 2, 34, Math.floor(width * 0.4));
  const right = width - left - 2;
  const out: string[] = [];
  for (const [l, r] of rows) {
    const text = wrap(r, right);
    if (l.length + 2 > left) {
      out.push(`  ${l}`);
      for (const t of text) out.push(`${' '.repeat(left + 2)}${t}`.trimEnd());
      continue;
    }
    text.forEach((t, i) => out.push(`  ${(i === 0 ? l : '').padEnd(left)}${t}`.trimEnd()));
  }
  return out;
}

function notes(o: Options | PositionalOptions): string {
  const tags: string[] = [];
  if (o.array) tags.push('[array]');
  else if (o.type) tags.push(`[${o.type}]`);
  const shown = 'defaultDescription' in o && o.defaultDescription !== undefined ? o.defaultDescription : o.default !== undefined && o.default !== false ? JSON.stringify(o.default) : undefined;
  if (shown !== undefined) tags.push(`[default: ${shown}]`);
  return tags.join(' ');
}

const describeWith = (o: Options | PositionalOptions) => [o.describe ?? '', notes(o)].filter(Boolean).join(' ');

/** `chatprobe --help`, or `chatprobe COMMAND --help`: what yargs would print, without loading yargs. */
export function renderHelp(spec: CommandSpec | undefined, width: number): string {
  const top = !spec || spec.isDefault;
  const command = spec ?? COMMANDS.find((c) => c.isDefault)!;
  const lines: string[] = [];
  if (top) {
    lines.push('chatprobe [command] [options]', '', ...wrap(USAGE, width), '', 'Commands:');
    lines.push(...table(COMMANDS.map((c) => [`chatprobe ${c.command}`, c.isDefault ? `${c.describe} [default]` : c.describe]), width));
  } else {
    lines.push(`chatprobe ${command.command} [options]`, '', ...wrap(command.describe, width));
  }
  if (command.positionals) {
    lines.push('', 'Positionals:');
    lines.push(...table(Object.entries(command.positionals).map(([name, o]) => [name, describeWith(o)]), width));
  }
  lines.push('', 'Options:');
  const rows: [string, string][] = Object.entries(command.options).map(([name, o]) => [`--${name}`, describeWith(o)]);
  rows.push(['--version', 'Show the version number [boolean]'], ['-h, --help', 'Show this help [boolean]']);
  lines.push(...table(rows, width));
  if (command.examples) {
    lines.push('', 'Examples:');
    lines.push(...table(command.examples, width));
  }
  if (top) lines.push('', 'Environment:', ...table(ENVIRONMENT, width), '', ...wrap(EXIT_CODES, width));
  return `${lines.join('\n')}\n`;
}

/**
 * What the arguments ask of the help and version flags, read before anything else is loaded: the command
 * (the first argument, when it names one), and whether --help / -h or --version is among them.
 */
export function helpRequest(argv: readonly string[]): { help: CommandSpec | 'top' | undefined; version: boolean } {
  const args = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  const named = COMMANDS.find((c) => c.name === args[0]);
  const help = args.includes('--help') || args.includes('-h') ? (named ?? 'top') : undefined;
  return { help, version: args.includes('--version') };
}
