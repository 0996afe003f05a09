import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOM_CAP, ROOM_FACTOR, ROOM_SLACK } from '../../src/engine/room.js';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import type { Report } from '../../src/results/model.js';
import { LIMITS } from '../../suites/support/prompts.js';
import { runCli } from '../helpers/cli.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';

const KEY = 'sk-reasoning-room-0123456789';

/**
 * Room for reasoning, through the built CLI: a model that reasons 64 tokens before a word (long-thinker) gets
 * 2 × 64 + 16 more on its short limits and a decided roles row; the same model behind a server whose
 * default limit cuts the plain request inside the reasoning (default-capped) gets none, and its cut cells
 * say why; a model with no reasoning (the default profile's) sends its limits as written.
 */
describe('room for reasoning in the output limits', () => {
  let server: ReferenceServer;
  let report: Report;
  let har: { log: { entries: { _model?: string; _probe: string; request: { postData?: { text: string } } }[] } };
  beforeAll(async () => {
    const profile = loadProfile('reasoning');
    profile.models = profile.models.filter((m) => ['long-thinker', 'default-capped', 'deepseek-style'].includes(m.id));
    server = await startReferenceServer({ profile, apiKey: KEY });
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, '--probes', 'roles.*,reasoning.effort,parameters.max_tokens'], { OPENAI_API_KEY: KEY });
    expect(run.code, run.stderr).not.toBe(2);
    report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    har = JSON.parse(await readFile(join(out, 'exchanges.har'), 'utf8'));
  }, 120_000);
  afterAll(() => server?.close());

  const limitsOf = (model: string, probe: string) =>
    har.log.entries
      .filter((e) => e._model === model && e._probe === probe && e.request.postData)
      .map((e) => JSON.parse(e.request.postData!.text) as Record<string, unknown>)
      .map((b) => b.max_tokens ?? b.max_completion_tokens);
  const cell = (model: string, probe: string) => report.results.find((r) => r.model === model && r.probe === probe)!;

  it('learns the room once, from the smoke call, and records it on the model', () => {
    const room = ROOM_FACTOR * 64 + ROOM_SLACK;
    expect(room).toBeLessThan(ROOM_CAP);
    const entry = (id: string) => report.models.find((m) => m.id === id)!.smoke!.reasoningRoom;
    expect(entry('long-thinker')).toEqual({ tokens: room, why: expect.stringMatching(/64 reasoning tokens in the smoke call, by usage\.completion_tokens_details\.reasoning_tokens/) });
    expect(entry('default-capped')).toEqual({ tokens: 0, why: expect.stringMatching(/no room added for reasoning: the smoke call shows reasoning .* cut by a limit before it ended/) });
  });

  it('gives a short request room, and sends the limits that are judged or sized for reasoning as written', () => {
    const room = ROOM_FACTOR * 64 + ROOM_SLACK;
    expect(limitsOf('long-thinker', 'roles.name')).toEqual([LIMITS.word + room]);
    // The limit under test goes as written; the uncapped answer it is judged against gets room like any other.
    expect(new Set(limitsOf('long-thinker', 'parameters.max_tokens'))).toEqual(new Set([LIMITS.count + room, 5]));
    expect(new Set(limitsOf('long-thinker', 'reasoning.effort'))).toEqual(new Set([512, 16]));
    expect(limitsOf('default-capped', 'roles.name')).toEqual([LIMITS.word]);
  });

  it('decides the roles row of a model that reasons, and says why the row of one whose room is unknown stays open', () => {
    for (const probe of ['roles.system', 'roles.history', 'roles.image', 'roles.tool_result']) {
      expect(cell('long-thinker', probe).verdict, probe).toBe('honoured');
      expect(cell('deepseek-style', probe).verdict, probe).toBe('honoured');
      const open = cell('default-capped', probe);
      expect(open.verdict, probe).toBe('inconclusive');
      expect(open.findings.find((f) => f.code === 'reasoning_room')?.message, probe).toMatch(/no room for reasoning was added to that limit: the smoke call shows reasoning/);
    }
    expect(cell('long-thinker', 'roles.system').findings.map((f) => f.code)).not.toContain('reasoning_room');
  });
});
