import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A temporary folder removed after the file's tests. */
export async function tempDir(prefix = 'chatprobe-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
