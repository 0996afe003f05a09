import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What bash did with a pasted text. */
export interface Pasted {
  status: number | null;
  stderr: string;
  /** The stubs run, in order, each with the arguments it got. */
  calls: { name: string; args: string[] }[];
  /** Every command bash ran, as its DEBUG trap saw it (command substitutions included). */
  commands: string[];
  /** What is left in the folder the text ran in: a file here was made by a command the text smuggled in. */
  leftovers: string[];
}

/**
 * A stub: records its name and arguments, NUL-separated, in a file of its own (numbered in call order), and
 * does nothing else. `curl` and `chatprobe` are these, first on PATH.
 */
const STUB = `#!/bin/sh
n=$(($(cat "$CALLS/count" 2>/dev/null || echo 0) + 1))
echo "$n" > "$CALLS/count"
printf '%s\\0' "\${0##*/}" "$@" > "$CALLS/$n"
`;

/**
 * `text` pasted into bash as a user pastes what chatprobe printed: read from standard input, in an empty
 * folder, with nothing of ours in the environment but PATH (the stubs, then the system's commands, so a
 * smuggled `touch` would run and leave its file) and a key for the curl commands' `$OPENAI_API_KEY`.
 */
export async function pasteIntoBash(text: string, parent: string): Promise<Pasted> {
  const root = await mkdtemp(join(parent, 'paste-'));
  const [bin, calls, work] = [join(root, 'bin'), join(root, 'calls'), join(root, 'work')];
  for (const dir of [bin, calls, work]) await mkdir(dir);
  for (const name of ['curl', 'chatprobe']) {
    await writeFile(join(bin, name), STUB);
    await chmod(join(bin, name), 0o755);
  }
  const commandsFile = join(root, 'commands');
  // The trap records each command before it runs; -T carries it into command substitutions, where a `$(…)`
  // that escaped its quotes would run.
  const prelude = `set -T\ntrap 'printf "%s\\0" "$BASH_COMMAND" >> "$COMMANDS"' DEBUG\n`;
  const run = spawnSync(
    '/usr/bin/env',
    ['-i', `PATH=${bin}:/usr/bin:/bin`, `CALLS=${calls}`, `COMMANDS=${commandsFile}`, 'OPENAI_API_KEY=sk-stub', 'bash', '--norc', '--noprofile', '-s'],
    { cwd: work, input: prelude + text, encoding: 'utf8' },
  );
  const split = (s: string) => s.split('\0').slice(0, -1);
  const count = Number((await readFile(join(calls, 'count'), 'utf8').catch(() => '0')).trim());
  const recorded = [];
  for (let i = 1; i <= count; i++) {
    const [name, ...args] = split(await readFile(join(calls, String(i)), 'utf8'));
    recorded.push({ name: name!, args });
  }
  const commands = split(await readFile(commandsFile, 'utf8').catch(() => ''));
  return { status: run.status, stderr: run.stderr, calls: recorded, commands, leftovers: await readdir(work) };
}
