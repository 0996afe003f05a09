import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from '../../helpers/cli.js';

const made: string[] = [];
// Registered when a test file imports this module: a hook added from inside a running test is not run.
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

/**
 * A job's working directory (its GITHUB_WORKSPACE), removed after the file's tests. It is inside the
 * repository's git-ignored reports/ folder because runCli's `--import tsx` is resolved from the working
 * directory it is given: from a folder outside the repository it would not find tsx.
 */
export async function workspaceDir(prefix = 'workspace'): Promise<string> {
  const base = join(ROOT, 'reports');
  await mkdir(base, { recursive: true });
  const dir = await mkdtemp(join(base, `.${prefix}-`));
  made.push(dir);
  return dir;
}
