// `chatprobe --help` and `chatprobe COMMAND --help`, from the commands' declarations (commands.ts), the
// ones the line is read by: the help cannot name a flag the parser does not take, or miss one.
import { wrapText as wrap } from '../text.js';
import { COMMANDS, ENVIRONMENT, EXIT_CODES, USAGE, usageOf, type CommandSpec } from './commands.js';
import type { Flag, Positional } from './flags.js';

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

/** A flag's or positional's tags: what it takes (`[array]`: several values), and its default. */
function notes(o: Flag | Positional): string {
  const tags = [o.many ? '[array]' : `[${'type' in o ? o.type : 'string'}]`];
  const shown = 'type' in o ? (o.shownDefault ?? (o.default !== undefined && o.default !== false ? JSON.stringify(o.default) : undefined)) : undefined;
  if (shown !== undefined) tags.push(`[default: ${shown}]`);
  return tags.join(' ');
}

const describeWith = (o: Flag | Positional) => [o.describe, notes(o)].filter(Boolean).join(' ');

/** `chatprobe --help` (`spec` undefined, or the default command's), or `chatprobe COMMAND --help`. */
export function renderHelp(spec: CommandSpec | undefined, width: number): string {
  const top = !spec || spec.isDefault;
  const command = spec ?? COMMANDS.find((c) => c.isDefault)!;
  const lines: string[] = [];
  if (top) {
    lines.push('chatprobe [command] [options]', '', ...wrap(USAGE, width), '', 'Commands:');
    lines.push(...table(COMMANDS.map((c) => [`chatprobe ${usageOf(c)}`, c.isDefault ? `${c.describe} [default]` : c.describe]), width));
  } else {
    lines.push(`chatprobe ${usageOf(command)} [options]`, '', ...wrap(command.describe, width));
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

