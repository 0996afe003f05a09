import { viewFingerprint } from '../../results/identity.js';
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { eachHarEntry, type HarEntryView } from '../har.js';
import { ENDPOINT, type Report } from '../../results/model.js';
import { curlOf, REPRODUCIBLE, reproLine } from '../repro.js';
import { VERDICT_TONE } from '../style.js';
import { EVERY_PROBE } from '../../results/view.js';
import { PAGE_CSS, PAGE_JS } from './html-page.js';
import { PAGE_EXCHANGE_CHARS, PAGE_MODELS } from '../bounds.js';
import { failuresFirst, modelTotals } from '../summary.js';

/**
 * report.html: one self-contained page (no network: its Content-Security-Policy allows nothing but its own
 * inline style and script) with the matrix, filters, search, each cell's evidence and the recorded
 * exchanges, and per-model stream timings. Everything the page shows is data in `<script
 * type="application/json">` blocks, escaped so no text of a server's can close them, and the page's script
 * puts it in the document as text nodes only: a model id or an answer is never markup.
 *
 * The exchanges come from exchanges.har, read a line at a time and written out a batch at a time, so the
 * page of a long run is never one string in memory.
 */

/** Characters of one body the page shows (exchanges.har keeps up to 64K). */
export const PAGE_BODY_CHARS = 16 * 1024;
/** Stream events the page shows per exchange, and characters of each. */
export const PAGE_EVENTS = 200;
export const PAGE_EVENT_CHARS = 2048;
/** Upper edges (ms) of the chunk-gap histogram's buckets; the last bucket is everything above. */
export const GAP_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
/** Stream starts kept per model for its time-to-first-event chart. */
const TTFT_KEPT = 200;
/** Characters gathered before a write. */
const WRITE_BATCH = 256 * 1024;

/**
 * JSON for a `<script type="application/json">` block: redacted as JSON (where the redactor knows every
 * encoding of a secret), then with `<`, `>` and `&` as \u escapes, so nothing in it can end the block or
 * open markup.
 */
export function scriptJson(value: unknown, redact: (s: string) => string): string {
  return redact(JSON.stringify(value)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The head of a chatprobe page, up to its app's element: a Content-Security-Policy that lets nothing leave
 * the page (no fetch, no image, no font, no frame; only its own inline style and script). `title` is
 * redacted already; `noscript` is our own words.
 */
export function pageHead(title: string, css: string, noscript: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${css}</style></head><body>`,
    `<noscript><p>${escapeHtml(noscript)}</p></noscript>`,
    '<div id="app"></div>',
  ].join('\n');
}

/** Which recorded exchanges a page embeds, and what it says of those it leaves out. */
export interface ExchangeChoice {
  /** The exchanges the page may show (of the models it draws, or the evidence of the cells it shows). */
  wanted(e: HarEntryView): boolean;
  /** The call ids whose exchange gets its curl command. */
  reproducible: ReadonlySet<string>;
  /** Characters of exchanges the block may hold. */
  budget: number;
  /** Past this (performance.now()), no more are embedded: --max-duration covers writing the reports. */
  deadline?: number | undefined;
  /** Counts the exchanges left out, and why. */
  cut: Pick<PageCut, 'exchangesLeft' | 'exchangesWhy'>;
  /** Each entry of the file, embedded or not (the stream timings gather them all). */
  seen?(e: HarEntryView): void;
}

/**
 * A `<script type="application/json" id={id}>` block of the exchanges of `harPath` the page shows, keyed by
 * call id, read a line at a time and written through `put` an entry at a time, each redacted as JSON; an empty
 * block without the file. Resolves with whether the file was there (the run recorded its exchanges).
 */
export async function putExchanges(put: (piece: string) => Promise<void>, redact: (s: string) => string, id: string, harPath: string | undefined, choice: ExchangeChoice): Promise<boolean> {
  await put(`\n<script type="application/json" id="${id}">{`);
  // No exchanges.har (a merged report of shards that recorded none): the page says they were not recorded.
  let recorded = false;
  if (harPath && existsSync(harPath)) {
    let first = true;
    let chars = 0;
    await eachHarEntry(harPath, async (e) => {
      choice.seen?.(e);
      if (!choice.wanted(e)) {
        choice.cut.exchangesLeft++;
        return;
      }
      if (chars > choice.budget || (choice.deadline !== undefined && performance.now() > choice.deadline)) {
        choice.cut.exchangesWhy ??= chars > choice.budget ? `the page's budget of ${Math.round((choice.budget / 1024 / 1024) * 10) / 10} MB of exchanges` : 'the time left to write the reports';
        choice.cut.exchangesLeft++;
        return;
      }
      const piece = `${first ? '' : ','}${scriptJson(e._callId, redact)}:${scriptJson(pageExchange(e, choice.reproducible.has(e._callId)), redact)}`;
      chars += piece.length;
      await put(piece);
      first = false;
    });
    recorded = true;
  }
  await put('}</script>\n');
  return recorded;
}

/** Escapes text for HTML content and attribute values (the few strings the page's head carries). */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One exchange as the page shows it: bodies and events capped for the page (the HAR has the record). */
export interface PageExchange {
  probe: string | undefined;
  model: string | undefined;
  method: string;
  url: string;
  status: number;
  statusText: string | undefined;
  ms: number;
  /** Milliseconds to the first byte of the answer (the HAR's wait). */
  wait: number | undefined;
  requestHeaders: [string, string][];
  request: string | undefined;
  responseHeaders: [string, string][];
  /** The body as recorded; for a stream, absent when its events are given. */
  response: string | undefined;
  /** A stream's events: [ms since the request, data]. */
  events: [number, string][] | undefined;
  cuts: string[];
  error: string | undefined;
  /** The curl command that sends it again, for the evidence of a cell worth reproducing. */
  curl: string | undefined;
}

const capText = (text: string, max: number, what: string, cuts: string[]): string => {
  if (text.length <= max) return text;
  cuts.push(`report.html shows the first ${max} of the ${what}'s ${text.length} recorded characters; exchanges.har has them all`);
  return text.slice(0, max);
};

/** A HAR entry as the page shows it. */
export function pageExchange(e: HarEntryView, reproducible: boolean): PageExchange {
  const cuts = [...(e._cuts ?? [])];
  const events = e._events?.slice(0, PAGE_EVENTS).map((ev): [number, string] => [ev.at, ev.data.length > PAGE_EVENT_CHARS ? `${ev.data.slice(0, PAGE_EVENT_CHARS)}…` : ev.data]);
  if (e._events && e._events.length > PAGE_EVENTS) cuts.push(`report.html shows the first ${PAGE_EVENTS} of the ${e._events.length} recorded events; exchanges.har has them all`);
  const body = e.request.postData?.text;
  return {
    probe: e._probe,
    model: e._model,
    method: e.request.method,
    url: e.request.url,
    status: e.response.status,
    statusText: e.response.statusText || undefined,
    ms: e.time,
    wait: e.timings?.wait,
    requestHeaders: e.request.headers.map((h) => [h.name, h.value]),
    request: body === undefined ? undefined : capText(body, PAGE_BODY_CHARS, 'request body', cuts),
    responseHeaders: e.response.headers.map((h) => [h.name, h.value]),
    response: events ? undefined : capText(e.response.content.text ?? '', PAGE_BODY_CHARS, 'response body', cuts),
    events,
    cuts,
    error: e._error,
    curl: reproducible ? curlOf(e) : undefined,
  };
}

/** Per-model stream timings, gathered from the recorded streams: when the first event came, the gaps after. */
export class StreamTimings {
  private readonly byModel = new Map<string, { ttft: number[]; gaps: number[]; streams: number }>();

  add(e: HarEntryView): void {
    const events = e._events;
    if (!e._model || !events || events.length === 0 || e.response.status < 200 || e.response.status > 299) return;
    let m = this.byModel.get(e._model);
    if (!m) this.byModel.set(e._model, (m = { ttft: [], gaps: new Array<number>(GAP_BUCKETS.length + 1).fill(0), streams: 0 }));
    m.streams++;
    if (m.ttft.length < TTFT_KEPT) m.ttft.push(Math.round(events[0]!.at));
    for (let i = 1; i < events.length; i++) {
      const gap = events[i]!.at - events[i - 1]!.at;
      let b = GAP_BUCKETS.findIndex((edge) => gap < edge);
      if (b < 0) b = GAP_BUCKETS.length;
      m.gaps[b]!++;
    }
  }

  toJSON(): Record<string, { ttft: number[]; gaps: number[]; streams: number }> {
    return Object.fromEntries(this.byModel);
  }
}

/** What the page leaves out of a large run, said on the page (report.json and exchanges.har have it all). */
export interface PageCut {
  /** Models in the run, of which the page shows the first `shownModels`. */
  models: number;
  shownModels: number;
  /** Exchanges left out: of models the page does not show, or past its size budget, or past the deadline. */
  exchangesLeft: number;
  /** Why exchanges of shown models were left out, if any were. */
  exchangesWhy?: string;
}

/**
 * The part of a report the page draws: the first PAGE_MODELS models and their cells, and the endpoint's.
 * A browser lays out a DOM node per cell; 100,000 models × 60 probes is not a page anyone can open.
 */
export function pagePart(report: Report): Report {
  if (report.models.length <= PAGE_MODELS) return report;
  const models = report.models.slice(0, PAGE_MODELS);
  const shown = new Set<string>([ENDPOINT]);
  for (const m of models) shown.add(m.id);
  return { ...report, models, results: report.results.filter((r) => shown.has(r.model)) };
}

/**
 * What the page's script reads: the report, with each cell worth reproducing given its command, and each
 * model its totals and its place when the models are ordered failures first.
 */
function pageData(report: Report, exchanges: boolean, cut?: PageCut): unknown {
  const repro = (verdict: string, evidence: readonly string[], model: string, probe: string) =>
    REPRODUCIBLE.has(verdict) && evidence.length > 0 && exchanges ? reproLine(model, probe) : undefined;
  const totals = modelTotals(report);
  const rank = new Map(failuresFirst(report.models, totals).map((m, i) => [m.id, i]));
  return {
    ...report,
    endpoint: ENDPOINT,
    everyProbe: EVERY_PROBE,
    tones: VERDICT_TONE,
    gapBuckets: GAP_BUCKETS,
    exchangesRecorded: exchanges,
    ...(cut ? { pageCut: cut } : {}),
    results: report.results.map((r) => ({ ...r, repro: repro(r.verdict, r.evidence, r.model, r.probe) })),
    models: report.models.map((m) => ({
      ...m,
      ...(m.notRun ? { notRun: { ...m.notRun, repro: repro(m.notRun.verdict, m.notRun.evidence, m.id, EVERY_PROBE) } } : {}),
      ...(totals.has(m.id) ? { totals: totals.get(m.id), rank: rank.get(m.id) } : {}),
      ...(m.fingerprint && !m.notRun ? { fingerprintView: viewFingerprint(m.fingerprint) } : {}),
    })),
  };
}

/**
 * Writes report.html to `path`: the report (already through the output boundary), and the exchanges of
 * `harPath` when the run recorded them. Every piece written passes `redact`, a whole entry at a time.
 */
export async function writeHtml(path: string, whole: Report, harPath: string | undefined, redact: (s: string) => string, deadline?: number): Promise<void> {
  const report = pagePart(whole);
  // Written synchronously, a batch at a time: no write of ours is left in flight when the process quits
  // (a second Ctrl-C), so the temporary file removed then is not made again behind it.
  const file = openSync(path, 'w');
  let pending: string[] = [];
  let size = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    size = 0;
    writeSync(file, text, null, 'utf8');
  };
  // Each piece of data passes the redactor once more as written (the file as a whole, as every report
  // does). The page's own markup, style and script do not: they hold no text of anyone's, and a short key
  // removed where it stands as a credential (`byKey = new` reads as one for a key `new`) would break them.
  const write = async (piece: string) => {
    pending.push(piece);
    size += piece.length;
    if (size >= WRITE_BATCH) await flush();
  };
  const put = (piece: string) => write(redact(piece));
  try {
    await write(pageHead(redact(`chatprobe · ${report.target.baseUrl}`), PAGE_CSS, 'This report draws its matrix with JavaScript; matrix.md beside it has the same verdicts as text.'));
    // The evidence of cells worth reproducing gets its curl command.
    const reproducible = new Set<string>();
    for (const r of report.results) if (REPRODUCIBLE.has(r.verdict)) for (const id of r.evidence) reproducible.add(id);
    for (const m of report.models) if (m.notRun && REPRODUCIBLE.has(m.notRun.verdict)) for (const id of m.notRun.evidence) reproducible.add(id);
    const timings = new StreamTimings();
    const cut: PageCut = { models: whole.models.length, shownModels: report.models.length, exchangesLeft: 0 };
    const shown = new Set(report.models.map((m) => m.id));
    // The exchanges of the models the page shows (and the endpoint's).
    const recorded = await putExchanges(put, redact, 'exchanges-data', harPath, {
      wanted: (e) => e._model === undefined || shown.has(e._model),
      reproducible,
      budget: PAGE_EXCHANGE_CHARS,
      deadline,
      cut,
      seen: (e) => timings.add(e),
    });
    await put(`<script type="application/json" id="timings-data">${scriptJson(timings, redact)}</script>\n`);
    const cutSaid = cut.shownModels < cut.models || cut.exchangesLeft > 0 ? cut : undefined;
    await put(`<script type="application/json" id="report-data">${scriptJson(pageData(report, recorded, cutSaid), redact)}</script>\n`);
    await write(`<script>${PAGE_JS}</script>\n</body></html>\n`);
    await flush();
  } finally {
    closeSync(file);
  }
}
