import { defineProbe } from '../../src/engine/probe.js';
import { answerProblem } from '../../src/engine/verdicts.js';
import { pngDataUri, solidPng } from '../../src/media/png.js';
import { LIMITS, user } from '../support/prompts.js';
import { answerOf, judgeImage } from '../support/roles.js';

// Green rather than red: a model that cannot see the image and guesses says "red" far more often.
const COLOUR = 'green';
const IMAGE = pngDataUri(solidPng(16, [30, 170, 60]));
const QUESTION = 'What colour is this image? Answer in one word.';

export default defineProbe({
  id: 'roles.image',
  area: 'roles',
  kind: 'capability',
  requirement: 'An image part (a data-URI PNG, one solid colour) reaches the model: asked its colour, the model names it, where without the image it does not.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The image, then one control: the question without the image (the answer named the colour: a guess?)
  // or with the colour in words (it did not: can the model name it at all?).
  cost: { requests: 2, maxTokens: 2 * LIMITS.word },
  async run(ctx) {
    const x = await ctx.chat({ messages: [user([{ type: 'text', text: QUESTION }, { type: 'image_url', image_url: { url: IMAGE } }])], max_tokens: LIMITS.word });
    // Read as judgeImage reads it: the answer after any thinking.
    const named = answerOf(x).toLowerCase().includes(COLOUR);
    const text = named ? QUESTION : `The image I would show you is solid ${COLOUR}. ${QUESTION}`;
    const other = x.ok && !answerProblem(x) ? await ctx.chat({ messages: [user(text)], max_tokens: LIMITS.word }) : undefined;
    return judgeImage(x, other, COLOUR, ctx.control());
  },
});
