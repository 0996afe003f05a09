import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.stream_options_without_stream',
  area: 'parameters',
  kind: 'capability',
  tier: 'extended',
  requirement: 'stream_options without stream: true is accepted or refused (OpenAI refuses it with a 400).',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) => acceptance(ctx, 'stream_options', { stream_options: { include_usage: true } }, 'stream_options without stream'),
});
