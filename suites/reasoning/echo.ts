import { defineProbe } from '../../src/engine/probe.js';
import { inconclusive } from '../../src/engine/verdicts.js';
import { judgeAcceptance } from '../support/params.js';
import { LIMITS, user } from '../support/prompts.js';
import { notReasoning } from '../support/reasoning.js';

export default defineProbe({
  id: 'reasoning.echo',
  area: 'reasoning',
  kind: 'capability',
  requirement:
    "An assistant message that carries its reasoning_content back in the history is accepted (DeepSeek's thinking mode needs it for tool turns; servers that refuse unknown message fields reject it).",
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 4 * LIMITS.word },
  async run(ctx) {
    const skip = notReasoning(ctx.control());
    if (skip) return inconclusive(`skipped: ${skip}`);
    const messages = [user('Reply with the single word OK.'), { role: 'assistant', content: 'OK', reasoning_content: 'The user asks for one word: OK.' }, user('Again, please.')];
    // Reasoning counts against the limit: room for a short thought and the word.
    const x = await ctx.chat({ messages, max_tokens: 4 * LIMITS.word });
    return judgeAcceptance(x, ctx.control(), 'an assistant message with reasoning_content', ['reasoning_content', 'messages']);
  },
});
