import { closeSync, openSync, writeSync } from 'node:fs';
import { ENDPOINT, type Report } from '../../results/model.js';
import { PAGE_EXCHANGE_CHARS } from '../bounds.js';
import { CHANGE_ORDER, sideBySide, type Change, type SideRow } from '../compare.js';
import { REPRODUCIBLE } from '../repro.js';
import { VERDICT_TONE } from '../style.js';
import { COMPARE_CSS, COMPARE_JS } from './compare-page.js';
import { pageHead, pagePart, putExchanges, scriptJson, type PageCut } from './html.js';

/** One run on the comparison page: its report (through the output boundary), where it came from, its exchanges. */
export interface ComparedRun {
  /** How the page names it: A and B, or an endpoint's folder. */
  label: string;
  /** The report's path as the user gave it (or the endpoint's folder). */
  path: string;
  report: Report;
  /** Its exchanges.har, when there is one. */
  harPath: string | undefined;
}

/**
 * The comparison page: two runs (`chatprobe compare A B --html OUT`), or the endpoints of one run
 * (`--base-url A --base-url B`), side by side, the differences first, each with every run's cell and its
 * evidence. Self-contained as report.html is (the same head, the same evidence code, data as JSON blocks
 * the script puts in as text), and written the same way: each piece of data redacted as written.
 *
 * Each run's matrix is the part report.html draws (its first PAGE_MODELS models); the exchanges embedded
 * are the evidence of the differing cells, within report.html's budget shared between the runs.
 */
export async function writeCompareHtml(path: string, title: string, runs: readonly ComparedRun[], redact: (s: string) => string): Promise<void> {
  const parts = runs.map((r) => pagePart(r.report));
  const view = sideBySide(parts);
  const counts: Record<Change | 'differences' | 'same', number> = { worse: 0, better: 0, different: 0, model_missing: 0, model_added: 0, differences: view.differences.length, same: view.same.length };
  // A model gone (or new) is one change, as `chatprobe compare` counts it, not one a probe.
  const models = { model_missing: new Set<string>(), model_added: new Set<string>() };
  for (const d of view.differences) {
    if (d.change === 'model_missing' || d.change === 'model_added') models[d.change].add(d.model);
    else counts[d.change!]++;
  }
  counts.model_missing = models.model_missing.size;
  counts.model_added = models.model_added.size;
  const notes: string[] = [];
  runs.forEach((r, i) => {
    if (parts[i]!.models.length < r.report.models.length) notes.push(`${r.label}: this page compares the first ${parts[i]!.models.length} of its ${r.report.models.length} models; \`chatprobe compare\` in the terminal compares them all.`);
  });
  view.against.forEach((c, i) => {
    const b = runs[i + 1]!.label;
    const a = runs[0]!.label;
    if (c.probesOnlyIn.a.length > 0) notes.push(`not compared, run by ${a} only: ${c.probesOnlyIn.a.join(', ')}`);
    if (c.probesOnlyIn.b.length > 0) notes.push(`not compared, run by ${b} only: ${c.probesOnlyIn.b.join(', ')}`);
    if (c.modelsOnlyIn.a.length > 0) notes.push(`not compared, models ${b}'s --models left out: ${c.modelsOnlyIn.a.join(', ')}`);
    if (c.modelsOnlyIn.b.length > 0) notes.push(`not compared, models ${a}'s --models left out: ${c.modelsOnlyIn.b.join(', ')}`);
  });
  // The evidence each run's differing cells name: the exchanges the page embeds.
  const evidence = runs.map(() => new Set<string>());
  const reproducible = runs.map(() => new Set<string>());
  for (const d of view.differences) {
    d.cells.forEach((c, i) => {
      if (!c) return;
      for (const id of c.evidence) {
        evidence[i]!.add(id);
        if (REPRODUCIBLE.has(c.verdict)) reproducible[i]!.add(id);
      }
    });
  }
  const file = openSync(path, 'w');
  // Data is redacted as written, as report.html's is; the page's own markup, style and script are not (writers/html.ts).
  const write = async (piece: string) => void writeSync(file, piece, null, 'utf8');
  const put = (piece: string) => write(redact(piece));
  try {
    await write(pageHead(redact(title), COMPARE_CSS, 'This page draws the comparison with JavaScript; `chatprobe compare A B` prints the same differences as text.'));
    const recorded: boolean[] = [];
    const cuts: Pick<PageCut, 'exchangesLeft' | 'exchangesWhy'>[] = [];
    for (const [i, run] of runs.entries()) {
      const cut = { exchangesLeft: 0 };
      cuts.push(cut);
      recorded.push(
        await putExchanges(put, redact, `exchanges-${i}`, run.harPath, {
          wanted: (e) => evidence[i]!.has(e._callId),
          reproducible: reproducible[i]!,
          budget: PAGE_EXCHANGE_CHARS / runs.length,
          cut,
        }),
      );
    }
    cuts.forEach((c, i) => {
      if (c.exchangesWhy) notes.push(`${runs[i]!.label}: some exchanges are not on this page (past ${c.exchangesWhy}): its exchanges.har has them all.`);
    });
    const row = (r: SideRow) => ({ ...r, cells: r.cells.map((c) => c ?? null) });
    const data = {
      title,
      endpoint: ENDPOINT,
      tones: VERDICT_TONE,
      changeOrder: CHANGE_ORDER,
      runs: runs.map((r, i) => ({
        label: r.label,
        path: r.path,
        baseUrl: r.report.target.baseUrl,
        startedAt: r.report.startedAt,
        models: r.report.models.filter((m) => m.id !== ENDPOINT).length,
        exitCode: r.report.summary?.exitCode,
        exchangesRecorded: recorded[i],
      })),
      probes: view.probes,
      counts,
      notes,
      identity: view.against.map((c, i) => ({ a: runs[0]!.label, b: runs[i + 1]!.label, models: c.identity })),
      differences: view.differences.map(row),
      same: view.same.map(row),
    };
    await put(`<script type="application/json" id="compare-data">${scriptJson(data, redact)}</script>\n`);
    await write(`<script>${COMPARE_JS}</script>\n</body></html>\n`);
  } finally {
    closeSync(file);
  }
}
