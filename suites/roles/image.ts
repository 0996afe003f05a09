import { defineProbe } from '../../src/engine/probe.js';
import { pngDataUri, solidPng } from '../../src/media/png.js';
import { user } from '../support/prompts.js';
import { judgeRecall, RULE_IN_USER } from '../support/roles.js';

// Green rather than red: a model that cannot see the image and guesses says "red" far more often.
const IMAGE = pngDataUri(solidPng(16, [30, 170, 60]));

export default defineProbe({
  id: 'roles.image',
  area: 'roles',
  kind: 'capability',
  requirement: 'An image part (a data-URI PNG, one solid colour) reaches the model: asked its colour, the model names it.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 4, shared: [RULE_IN_USER] },
  run: (ctx) =>
    judgeRecall(
      ctx,
      [user([{ type: 'text', text: 'What colour is this image? Answer in one word.' }, { type: 'image_url', image_url: { url: IMAGE } }])],
      ['green'],
      'an image part',
      'messages[0].content',
    ),
});
