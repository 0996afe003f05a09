import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, SMOKE_PROMPT, type ChatBody, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, honoured, ignored, inconclusive, refusal, unreadable } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { contentOf, judgeAcceptance, quote } from './params.js';
import { sendApartOnRefusal } from './together.js';
import { LIMITS, user } from './prompts.js';

export const PINEAPPLE_RULE = 'Answer every message with only the word PINEAPPLE.';
export const UNRELATED_QUESTION = 'What is the capital of France?';

/**
 * A reasoning model's thinking left at the start of the content: a `<think>` block (an unclosed one is
 * thinking to the end), or everything up to a `</think>` whose opening tag the chat template wrote
 * itself (DeepSeek-R1's templates), so that the content never shows it.
 */
const THINK_BLOCK = /^\s*<think>[\s\S]*?(?:<\/think>|$)|^(?![\s\S]*<think>)[\s\S]*?<\/think>/i;

/**
 * The answer proper: the content without a leading `<think>` block. A model that restates the rule while
 * it thinks ("PINEAPPLE? No, answer the question") and then answers the question has not followed it.
 */
export const answerOf = (x: Exchange) => contentOf(x).replace(THINK_BLOCK, '');

const says = (x: Exchange, word: string) => answerOf(x).toUpperCase().includes(word.toUpperCase());

/** An answer that is all thinking (nothing after its `<think>` block) shows no effect either way. */
function allThinking(x: Exchange, want: string): ProbeVerdict | undefined {
  if (answerOf(x).trim() !== '' || contentOf(x).trim() === '') return undefined;
  return inconclusive(`expected ${want}, got ${quote(x)}: all of it thinking (a <think> block), no answer after it to judge`);
}

/** An answer cut by our own output limit may have said the words after it: never evidence of absence. */
function cutByOurLimit(x: Exchange, want: string): ProbeVerdict | undefined {
  if (readChoices(x.json)[0]?.finishReason !== 'length') return undefined;
  return inconclusive(`expected ${want}, got ${quote(x)}, cut by the output limit chatprobe sends: the rest of the answer may have had it`);
}

/** A readable answer that contains every word. */
const recalls = (x: Exchange, words: readonly string[]) => !answerProblem(x) && words.every((w) => says(x, w));

/** The instruction in the user message: the positive control of every role that carries it. */
export const RULE_IN_USER = defineShared({
  key: 'chat.rule_in_user',
  cost: { requests: 1, maxTokens: LIMITS.word },
  make: (ctx) => ctx.chat({ messages: [user(`${PINEAPPLE_RULE} ${UNRELATED_QUESTION}`)], max_tokens: LIMITS.word }),
});

/**
 * The instruction in a system message before an unrelated question: roles.system's request, shared because
 * usage.prompt_overhead reads its count too (a request that brings its own system message: an injected
 * prompt stays in it, a default system prompt does not).
 */
export const SYSTEM_RULE = defineShared({
  key: 'chat.rule_in_system',
  cost: { requests: 1, maxTokens: LIMITS.word },
  make: (ctx) => ctx.chat({ messages: [{ role: 'system', content: PINEAPPLE_RULE }, user(UNRELATED_QUESTION)], max_tokens: LIMITS.word }),
});

/**
 * An instruction carried by a role (system, developer, system parts) whose effect shows in one word no
 * answer to the question contains by chance: honoured when the answer is that word; ignored when it is
 * not though the model follows the same instruction given in a user message (the positive control);
 * inconclusive when it follows it nowhere.
 */
export function judgeInstruction(x: Exchange, ruleInUser: Exchange, control: Exchange, feature: string, names: readonly string[]): ProbeVerdict {
  if (!x.ok) return refusal(x, control, feature, names);
  const none = unreadable(x);
  if (none) return none;
  if (says(x, 'PINEAPPLE')) return honoured(`expected only "PINEAPPLE" to an unrelated question; got ${quote(x)}`);
  const cut = cutByOurLimit(x, '"PINEAPPLE"') ?? allThinking(x, '"PINEAPPLE"');
  if (cut) return cut;
  if (!recalls(ruleInUser, ['PINEAPPLE'])) {
    return inconclusive(`the answer ${quote(x)} ignores the instruction, but so does the answer with the instruction in the user message (${answerProblem(ruleInUser) ?? quote(ruleInUser)})`);
  }
  return ignored(`expected only "PINEAPPLE" to an unrelated question, got ${quote(x)}, though the same instruction as a user message is followed`);
}

export async function probeInstruction(ctx: ProbeContext, messages: unknown[], feature: string, names: readonly string[]): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages, max_tokens: LIMITS.word });
  return judgeInstruction(x, await ctx.shared(RULE_IN_USER), ctx.control(), feature, names);
}

/**
 * A message form whose content shows in the answer (`expected` words that no prompt of the request
 * names outright). Honoured: every word is there. Ignored: some word is missing while `plain`, the same
 * content in its plainest form (one user message, RECALL_PLAIN, which holds the other recall tasks too),
 * gets them all: the positive control (verdict contract, rule 2). Otherwise the model cannot show the
 * form's effect: inconclusive.
 */
export function judgeRecall(x: Exchange, plain: Exchange | undefined, expected: readonly string[], control: Exchange, feature: string, names: readonly string[]): ProbeVerdict {
  if (!x.ok) return refusal(x, control, feature, names);
  const none = unreadable(x);
  if (none) return none;
  const want = expected.join(' and ');
  const missing = expected.filter((w) => !says(x, w));
  if (missing.length === 0) return honoured(`expected ${want} in the answer; got ${quote(x)}`);
  const cut = cutByOurLimit(x, want) ?? allThinking(x, want);
  if (cut) return cut;
  if (!plain || !recalls(plain, expected)) {
    const got = plain ? (answerProblem(plain) ?? quote(plain)) : 'not sent';
    return inconclusive(`expected ${want} in the answer, got ${quote(x)}; but the same content in one plain user message (the recall tasks' control) does not get them either (${got})`);
  }
  return ignored(`expected ${want} in the answer, got ${quote(x)}: ${missing.join(', ')} missing, though the same content in one plain user message (the recall tasks' control) gets ${quote(plain)}`);
}

/**
 * The recall probes' tasks (roles.history, roles.content_parts, roles.tool_result), each as plain text: what
 * their message forms carry, said in one user message.
 */
export const RECALL_TASKS = {
  history: { code: 'ZEBRA-42', text: 'I asked you for a code word and you answered: "Your code word is ZEBRA-42." What code word did you give me? Reply with the code word only.' },
  contentParts: { words: ['MANGO', 'KIWI'], parts: ['Remember the word MANGO.', 'Remember the word KIWI.', 'Reply with both remembered words, separated by a space.'] },
  toolResult: {
    code: 'QX-93',
    result: '{"city": "Paris", "temperature_c": 17, "sky_code": "QX-93"}',
    text: 'The get_weather tool returned {"city": "Paris", "temperature_c": 17, "sky_code": "QX-93"}. What is the weather in Paris? Tell me the sky code it returned.',
  },
} as const;

/** The line that opens the recall probes' plain control: it asks for an answer to each task that follows. */
export const RECALL_PLAIN_OPENING = 'Three tasks; answer each on its own line.';

/**
 * The positive control of the recall probes (verdict contract, rule 2), one for the three: their tasks as
 * plain text in one user message, numbered. Sent only when a message form's answer lacks its words (the
 * first that does sends it, the others read it): each probe then checks its own words in the answer. A
 * model that does all three in one message can do its own; one that cannot leaves the cell inconclusive,
 * as a failed control of its own would.
 */
export const RECALL_PLAIN = defineShared({
  key: 'chat.recall_plain',
  cost: { requests: 1, maxTokens: 3 * LIMITS.word },
  make: (ctx) =>
    ctx.chat({
      messages: [user([RECALL_PLAIN_OPENING, `1. ${RECALL_TASKS.history.text}`, `2. ${RECALL_TASKS.contentParts.parts.join(' ')}`, `3. ${RECALL_TASKS.toolResult.text}`].join('\n'))],
      max_tokens: 3 * LIMITS.word,
    }),
});

/** Sends a message form and, only when its answer lacks the words, reads the plain control (RECALL_PLAIN). */
export async function probeRecall(
  ctx: ProbeContext,
  form: { messages: unknown[]; body?: Record<string, unknown> },
  expected: readonly string[],
  feature: string,
  names: readonly string[],
  control: () => Promise<Exchange> | Exchange = () => ctx.control(),
): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages: form.messages, max_tokens: LIMITS.word, ...form.body });
  const needsPlain = x.ok && !answerProblem(x) && !expected.every((w) => says(x, w));
  const p = needsPlain ? await ctx.shared(RECALL_PLAIN) : undefined;
  return judgeRecall(x, p, expected, await control(), feature, names);
}

/**
 * An image whose colour must be named. Honoured needs the colour, and the same question without the
 * image must not get it (the negative control: a blind model may guess). Ignored needs another answer
 * while the colour given as text is named (the positive control). `other` is the one control sent:
 * without the image when the colour was named, with the colour as text when it was not.
 */
export function judgeImage(x: Exchange, other: Exchange | undefined, colour: string, control: Exchange): ProbeVerdict {
  if (!x.ok) return refusal(x, control, 'an image part', ['image', 'image_url', 'images', 'vision', 'mmproj', 'multimodal']);
  const none = unreadable(x);
  if (none) return none;
  if (!other) return inconclusive(`the answer ${quote(x)} cannot be judged without a control, and none was sent`);
  if (says(x, colour)) {
    if (answerProblem(other)) return inconclusive(`the answer names ${colour} (${quote(x)}), but the same question without the image got no answer to compare with (${answerProblem(other)})`);
    if (says(other, colour)) return inconclusive(`the answer names ${colour} (${quote(x)}), but so does the same question without the image (${quote(other)}): a guess`);
    return honoured(`expected the image's colour, ${colour}; got ${quote(x)}, where the question without the image gets ${quote(other)}`);
  }
  const cut = cutByOurLimit(x, colour) ?? allThinking(x, colour);
  if (cut) return cut;
  if (!recalls(other, [colour])) {
    return inconclusive(`expected ${colour} in the answer, got ${quote(x)}; but told the colour in words, the model does not name it either (${answerProblem(other) ?? quote(other)})`);
  }
  return ignored(`expected ${colour} in the answer, got ${quote(x)}, though told the colour in words the model names it (${quote(other)})`);
}

/** For message forms with no effect to see: accepted or rejected, with the answer recorded. */
export async function judgeForm(ctx: ProbeContext, messages: unknown[], feature: string, names: readonly string[], note?: (x: Exchange) => string): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages, max_tokens: LIMITS.word });
  const v = judgeAcceptance(x, ctx.control(), feature, names);
  if (v.verdict !== 'accepted') return v;
  return { verdict: 'accepted', observed: `${feature} accepted with HTTP ${x.status}; answer ${quote(x)}${note ? `; ${note(x)}` : ''}` };
}

/**
 * Message forms a probe only asks to be accepted (roles.name, roles.consecutive_user), in one request: a
 * named user message followed by another user message. Each is judged by its answer, and a refusal is the
 * form it names (`names`, as refusal() attributes it); the other form is then sent alone, and a refusal
 * that names neither sends each alone (together.ts).
 */
export const FORMS = {
  name: { feature: 'a message name', names: ['messages[0].name', 'name'] },
  consecutive_user: { feature: 'two user messages in a row', names: ['messages[1].role', 'alternate'] },
} as const;

export type Form = keyof typeof FORMS;

function formsBody(forms: readonly Form[]): ChatBody {
  const named = forms.includes('name') ? { name: 'alice' } : {};
  const messages = forms.includes('consecutive_user') ? [{ role: 'user', ...named, content: 'Hello.' }, user(SMOKE_PROMPT)] : [{ role: 'user', ...named, content: SMOKE_PROMPT }];
  return { messages, max_tokens: LIMITS.word };
}

export const FORMS_TOGETHER = defineShared({
  key: 'chat.forms_together',
  // A refusal sends the other form again, or (naming neither) each alone.
  cost: { requests: 1, maxTokens: LIMITS.word, resends: Object.keys(FORMS).length },
  make: (ctx) => sendApartOnRefusal(ctx, Object.keys(FORMS) as Form[], formsBody, (f) => FORMS[f].names),
});

/** A form of FORMS judged by the answer it was sent in: accepted or rejected, with the answer recorded. */
export async function judgeFormTogether(ctx: ProbeContext, form: Form): Promise<ProbeVerdict> {
  const { x, with: carried } = (await ctx.shared(FORMS_TOGETHER)).get(form)!;
  const { feature, names } = FORMS[form];
  const others = carried.filter((f) => f !== form).map((f) => FORMS[f].feature);
  const also = others.length > 0 ? ` (one request with ${others.join(', ')} too: an answer is evidence for each form it carried)` : '';
  const v = judgeAcceptance(x, ctx.control(), feature, names);
  if (v.verdict !== 'accepted') return { ...v, observed: `${v.observed}${also}` };
  return { verdict: 'accepted', observed: `${feature} accepted with HTTP ${x.status}; answer ${quote(x)}${also}` };
}
