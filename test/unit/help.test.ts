import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { wrapText as wrap } from '../../src/boundary/text.js';
import { helpRequest, renderHelp } from '../../src/cli/help.js';

describe('help, rendered without the argument parser', () => {
  it('lists every option and positional of each command, and every command at the top', () => {
    const top = renderHelp(undefined, 100);
    for (const c of COMMANDS) expect(top).toContain(`chatprobe ${c.command}`);
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

  it('reads --help, -h and --version before anything else, and the command named first', () => {
    expect(helpRequest(['--help'])).toEqual({ help: 'top', version: false });
    expect(helpRequest(['doctor', '-h']).help).toMatchObject({ name: 'doctor' });
    expect(helpRequest(['--version'])).toEqual({ help: undefined, version: true });
    expect(helpRequest(['--base-url', 'http://x/v1'])).toEqual({ help: undefined, version: false });
    // After `--`, nothing is a flag.
    expect(helpRequest(['merge', '--', '--help'])).toEqual({ help: undefined, version: false });
  });
});
