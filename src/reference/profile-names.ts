/**
 * The bundled profiles' names, apart from the profiles themselves so that `--help` lists them without
 * loading them (profiles.ts checks the two agree).
 */
export const PROFILE_NAMES = [
  'default',
  'broken-gateway',
  'echo-key',
  'fastapi',
  'gateway-causes',
  'imperfect',
  'llama-cpp',
  'new-api',
  'picky',
  'roles',
  'sloppy-stream',
  'stalling',
  'strict-params',
  'stream-tools',
  'reasoning',
  'billing',
  'billing-late',
  'wrong-base-url',
  'rebuilding-gateway',
  'huge-errors',
  'usage',
  'identity',
] as const;
