/**
 * stdout and stderr writers that survive a closed pipe (`chatprobe --json | head`): EPIPE ends output
 * quietly instead of crashing the run before its reports are written.
 */
let stdoutClosed = false;

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') stdoutClosed = true;
  else throw err;
});
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});

export function out(text: string): void {
  if (!stdoutClosed) process.stdout.write(text);
}

export function err(text: string): void {
  process.stderr.write(text);
}
