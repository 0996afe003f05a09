import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, watch } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A merge of the shard folders `dir/s1` and `dir/s2` that stays in progress until it is stopped: shard 2's
 * record is a named pipe no one writes, so the merge waits on it with its own record half made. `out`
 * holds an earlier merge's report.json; `making` resolves once the merge has a temporary file there.
 * `free`, given stderr as it grows, gives the pipe a writer once the merge says it is interrupted: a thread
 * of Node's pool blocked opening it would otherwise hold the process at its exit (Node joins that pool).
 */
export async function blockedMerge(dir: string): Promise<{ args: string[]; out: string; making: Promise<void>; free: (stderr: string) => void }> {
  const fifo = join(dir, 's2', 'exchanges.har');
  await rm(fifo);
  execFileSync('mkfifo', [fifo]);
  const out = join(dir, 'merged');
  await mkdir(out);
  await writeFile(join(out, 'report.json'), 'the last merge');
  const making = new Promise<void>((resolve) => {
    const watcher = watch(out, (_event, name) => {
      if (name?.endsWith('.tmp')) {
        watcher.close();
        resolve();
      }
    });
  });
  let freed = false;
  /**
   * Gives the pipe a writer for a moment. ENXIO: no reader is waiting on it yet; the merge may still be
   * about to open it as it quits (the signal can come between its temporary file and that open), so it is
   * tried again, briefly, until a reader took it or the tries run out (no reader came: nothing holds the exit).
   */
  const unblock = (tries: number) => {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      if (tries > 0) setTimeout(() => unblock(tries - 1), 20).unref();
    }
  };
  const free = (said: string) => {
    if (freed || !said.includes('merge interrupted')) return;
    freed = true;
    unblock(250);
  };
  return { args: ['merge', join(dir, 's1'), join(dir, 's2'), '--out', out], out, making, free };
}
