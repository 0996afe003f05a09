import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The end-to-end tests run the CLI as users get it: the bundle `npm run build` makes (dist/cli.mjs), built
 * once before the run from the sources under test. Starting TypeScript through tsx for each of the
 * hundreds of CLI runs cost a second of CPU apiece, and left the suite's timing to the load of the machine.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/tsdown/dist/run.mjs`, '--logLevel', 'error'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
