import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

describe('Ctrl-C', () => {
  it('stops the run at the first, and at the second quits at once, saying that no report was written and where the calls went', async () => {
    const dir = await tempDir();
    const script = join(dir, 'twice.ts');
    // The process signals itself: the second Ctrl-C comes once the first has stopped the run.
    writeFileSync(
      script,
      [
        `import { interruptible } from ${JSON.stringify(join(ROOT, 'src/cli/output.ts'))};`,
        "const { signal } = interruptible((t) => process.stderr.write(t), () => ': no report written; the calls made so far are in x.interrupted.har');",
        "signal.addEventListener('abort', () => { process.stderr.write('[run stopped]'); process.kill(process.pid, 'SIGINT'); });",
        "setInterval(() => {}, 1000);",
        "process.kill(process.pid, 'SIGINT');",
      ].join('\n'),
    );
    const run = await runCommand(process.execPath, ['--import', 'tsx', script]);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('interrupted: finishing the partial report (press Ctrl-C again to quit at once)\n[run stopped]');
    expect(run.stderr).toContain('quit at once: no report written; the calls made so far are in x.interrupted.har\n');
  });
});
