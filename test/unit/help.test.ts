import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS, usageOf } from '../../src/cli/commands.js';
import { readCommandLine } from '../../src/cli/command-line.js';
import { wrapText as wrap } from '../../src/text.js';
import { renderHelp } from '../../src/cli/help.js';
import { ROOT } from '../helpers/cli.js';

describe('help, rendered from the declarations the line is read by', () => {
  it('lists every option and positional of each command, and every command at the top', () => {
    const top = renderHelp(undefined, 100);
    for (const c of COMMANDS) expect(top).toContain(`chatprobe ${usageOf(c)}`);
    expect(usageOf(COMMANDS.find((c) => c.name === 'merge')!)).toBe('merge <dirs..>');
    for (const c of COMMANDS) {
      const help = renderHelp(c, 100);
      for (const name of Object.keys(c.options)) expect(help, `${c.name} --${name}`).toMatch(new RegExp(`^  --${name} `, 'm'));
      for (const name of Object.keys(c.positionals ?? {})) expect(help).toMatch(new RegExp(`^  ${name} `, 'm'));
      expect(help).toContain('--version');
      expect(help).toContain('-h, --help');
    }
    expect(top).toMatch(/--concurrency +Requests in flight at once \[number\] \[default: 4\]/);
    expect(top).toMatch(/--api-key-env .*\[default:\s+"OPENAI_API_KEY"\]/s);
    // Only the commands that make a smoke call speak of one.
    const speaksOfSmoke = COMMANDS.filter((c) => /smoke call/.test(renderHelp(c, 100))).map((c) => c.name);
    expect(speaksOfSmoke).toEqual(['audit', 'demo', 'doctor']);
  });

  it('fits the width it is given, with no trailing spaces', () => {
    for (const width of [60, 80, 110]) {
      for (const c of [undefined, ...COMMANDS]) {
        const lines = renderHelp(c, width).split('\n');
        // A single word longer than the width (a URL in an example) may stand alone; nothing else may pass.
        for (const line of lines) if (line.trim().includes(' ')) expect(line.length, line).toBeLessThanOrEqual(width);
        expect(lines.filter((l) => l !== l.trimEnd())).toEqual([]);
      }
    }
  });

  it('wraps on spaces and keeps a word longer than the line whole', () => {
    expect(wrap('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrap('https://a-very-long-url.example/v1 x', 10)).toEqual(['https://a-very-long-url.example/v1', 'x']);
  });

  it('reads --help, -h and --version before anything else on the line, and the command named first', () => {
    const asked = (argv: string[]) => {
      const line = readCommandLine(argv);
      return { help: line.help, version: line.version, command: line.named ? line.command.name : undefined };
    };
    expect(asked(['--help'])).toEqual({ help: true, version: false, command: undefined });
    expect(asked(['doctor', '-h'])).toEqual({ help: true, version: false, command: 'doctor' });
    expect(asked(['--version'])).toEqual({ help: false, version: true, command: undefined });
    expect(asked(['--base-url', 'http://x/v1'])).toEqual({ help: false, version: false, command: undefined });
    // Help whatever else the line holds: it is how one finds out what is wrong with it.
    expect(asked(['merge', '--bogus', '--help'])).toEqual({ help: true, version: false, command: 'merge' });
    // After `--`, nothing is a flag.
    expect(asked(['merge', '--', '--help'])).toEqual({ help: false, version: false, command: 'merge' });
  });
});

describe("README's flag table", () => {
  /** The flags the table's first column names (`--base-url URL`, `--version`, `--help`). */
  const rows = () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    const table = readme.slice(readme.indexOf('| flag | default | meaning |')).split('\n\n')[0]!.split('\n').slice(2);
    return table.map((row) => {
      const [first = '', fallback = ''] = row.split(' | ').map((c) => c.replace(/^\| /, ''));
      return { flags: [...first.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]!), fallback: fallback.replace(/`/g, '') };
    });
  };

  it("names exactly the audit's flags --help lists (a switch on by default as its --no- form), with the same defaults", () => {
    const audit = COMMANDS.find((c) => c.isDefault)!;
    const documented = rows();
    const expected = Object.entries(audit.options).map(([name, f]) => (f.type === 'boolean' && f.shownDefault === 'true' ? `--no-${name}` : `--${name}`));
    expect(documented.flatMap((r) => r.flags).sort()).toEqual([...expected, '--version', '--help'].sort());
    for (const [name, f] of Object.entries(audit.options)) {
      if (f.type === 'boolean' || f.shownDefault === undefined) continue;
      const row = documented.find((r) => r.flags.includes(`--${name}`))!;
      expect(row.fallback, `--${name}`).toBe(String(JSON.parse(f.shownDefault)));
    }
  });
});
