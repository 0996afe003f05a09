import type { CallRecord, ModelEntry, ProbeResult, Report } from '../results/model.js';
import { ENDPOINT } from '../results/endpoint.js';
import { createRedactor, redactJoined, type Redact, type Redactor, type RedactorOptions, type RefusedSecret, type Secret } from './secrets.js';
import { clip, showControls } from '../text.js';
import { setOwn } from '../own.js';

/**
 * The one output boundary. Everything received stays raw inside the process; everything that leaves it
 * (each report file, stdout and stderr, the step summary, annotations, the baseline) goes through here:
 * secrets removed first (on decoded, whole text), then control characters made visible or stripped for
 * the sink, then sizes and depths cut. Writers escape for their format after this (Markdown, XML).
 */

export interface Limits {
  /** Characters per string. */
  string: number;
  /** Levels of nesting; deeper values become a note. */
  depth: number;
  /** Entries per array or object. */
  items: number;
}

/** The report's own structure: no item cap (10,000 models are 10,000 rows), strings and depth bounded. */
export const REPORT_LIMITS: Limits = { string: 10_000, depth: 32, items: Number.POSITIVE_INFINITY };

/** Server-controlled bags (a /models entry's extra keys): small, shallow. */
export const DECLARED_LIMITS: Limits = { string: 500, depth: 6, items: 50 };

/** A string this long or shorter is cleaned once (Boundary.text), up to SHORT_STRINGS_KEPT of them. */
const SHORT_STRING = 64;
const SHORT_STRINGS_KEPT = 4096;

export class Boundary {
  readonly redact: Redact;
  /** Secrets too short or too common to be searched for as fragments: removed only where they stand whole. */
  readonly refused: readonly RefusedSecret[];
  private readonly spans: Redactor['spans'];

  constructor(redactor: Redactor = createRedactor([])) {
    this.redact = redactor.redact;
    this.refused = redactor.refused;
    this.spans = redactor.spans;
  }

  static of(secrets: Iterable<Secret | string | undefined>, options?: RedactorOptions): Boundary {
    return new Boundary(createRedactor(secrets, options));
  }

  /**
   * Pieces a reader joins (a stream's deltas, in order), redacted on the joined text: a secret sent a few
   * characters an event is found whole. Undefined when none is there.
   */
  joined(pieces: readonly string[]): string[] | undefined {
    return redactJoined(pieces, this.spans);
  }

  /**
   * Where the secrets are in `text` (sorted, merged spans), for a writer that puts something of its own in
   * their place: the run's record puts a stand-in of the same shape (record/conceal.ts).
   */
  secretSpans(text: string): [number, number][] {
    return this.spans(text);
  }

  /**
   * Short strings cleaned so far (keys, header names, enum values: the same few, cleaned for every entry
   * of exchanges.har), each with the cap it was cut to. Bounded: a server's many distinct strings are
   * cleaned each time once it is full.
   */
  private readonly short = new Map<string, { max: number; clean: string }>();

  /** One string: redacted, controls visible, cut to `max`. */
  text(text: string, max = REPORT_LIMITS.string): string {
    if (text.length > SHORT_STRING) return clip(showControls(this.redact(text)), max);
    const known = this.short.get(text);
    if (known?.max === max) return known.clean;
    const clean = clip(showControls(this.redact(text)), max);
    if (known || this.short.size < SHORT_STRINGS_KEPT) this.short.set(text, { max, clean });
    return clean;
  }

  /**
   * Any JSON-shaped value, walked once: every string (keys included) cleaned, nesting and sizes bounded,
   * so serialising it can neither leak nor overflow the stack (a 100,000-deep array from a server).
   */
  clean<T>(value: T, limits: Limits = REPORT_LIMITS): T {
    return walk(value, this, limits, 0) as T;
  }

  /**
   * The report as every file shows it: each string cleaned, and each model named by its unique id
   * (nameModels) wherever the report names one: `models[].id`, results' `model`, a shard's plan. Writers
   * and the baseline key on these ids, so two models are never one row, one suite or one baseline entry.
   */
  report(report: Report): Report {
    const { models, ...rest } = report;
    this.nameModels(report.shard?.allModels ?? models.map((m) => m.id));
    const out = this.clean(rest);
    out.results = out.results.map((r, i) => ({ ...r, model: this.modelId(report.results[i]!.model) }));
    if (out.shard && report.shard) out.shard.allModels = report.shard.allModels.map((id) => this.modelId(id));
    return { ...out, models: models.map((m) => ({ ...this.model(m), id: this.modelId(m.id) })) };
  }

  /** One result as it completes (the live progress lines), its model named as the report will name it. */
  result(r: ProbeResult): ProbeResult {
    return { ...this.clean(r), model: this.modelId(r.model) };
  }

  trace(records: readonly CallRecord[]): CallRecord[] {
    return records.map((r) => (r.model === undefined ? this.clean(r) : { ...this.clean(r), model: this.modelId(r.model) }));
  }

  /** Each model's id in the outputs, by its id as listed (nameModels). */
  private names = new Map<string, string>();

  /**
   * Names the models of a run (its whole plan) for every output. An id is cleaned like any text, but cut
   * so that it stays within REPORT_LIMITS.string with its cut said: cleaning it again leaves it as it is,
   * so `chatprobe repro`, `merge` and `compare`, which clean the report they read, find the same id. Ids
   * that cleaning makes alike (cut at the same character, redacted to the same, an escape and the control
   * it shows) are told apart by a suffix saying so, numbered by their ids as listed, sorted (not by their
   * place in the listing, so a baseline keeps its keys when the server reorders its list): a hostile
   * server's 6 models must not become 3 rows of 112 results each.
   */
  nameModels(ids: Iterable<string>): void {
    const names = new Map<string, string>();
    const alike = new Map<string, string[]>();
    for (const id of new Set(ids)) {
      if (id === ENDPOINT) continue;
      const clean = this.modelText(id, REPORT_LIMITS.string);
      const group = alike.get(clean);
      if (group) group.push(id);
      else alike.set(clean, [id]);
    }
    const taken = new Set([ENDPOINT, ...alike.keys()]);
    for (const [clean, group] of alike) {
      if (group.length === 1) {
        names.set(group[0]!, clean);
        continue;
      }
      group.sort();
      group.forEach((id, i) => {
        // A suffixed id can itself be a listed one: a further number then sets it apart.
        let name: string;
        let again = 0;
        do {
          const note = ` [${i + 1} of ${group.length} ids alike once cleaned${again > 0 ? `, ${again + 1}` : ''}]`;
          name = this.modelText(id, REPORT_LIMITS.string - note.length) + note;
          again++;
        } while (taken.has(name));
        taken.add(name);
        names.set(id, name);
      });
    }
    this.names = names;
  }

  /** A model's id as the outputs name it: as nameModels named it, else cleaned the same way. */
  modelId(id: string): string {
    if (id === ENDPOINT) return id;
    return this.names.get(id) ?? this.modelText(id, REPORT_LIMITS.string);
  }

  /** An id redacted, its controls shown, and cut to at most `room` characters, the note of the cut included. */
  private modelText(id: string, room: number): string {
    const shown = showControls(this.redact(id));
    let clean = clip(shown, room);
    for (let max = room; clean.length > room; ) {
      max -= clean.length - room;
      clean = clip(shown, max);
    }
    return clean;
  }

  private model(m: ModelEntry): ModelEntry {
    const { declared, ...entry } = m;
    const out = this.clean(entry) as ModelEntry;
    if (declared) out.declared = this.clean(declared, DECLARED_LIMITS);
    return out;
  }

  /**
   * Text for a terminal or a CI log: secrets removed; every control character but the colours we paint
   * with shown as an escape (no carriage return, no concealed text, no cursor moves: see `progress` for
   * the one line we redraw); no line a CI runner would read as a workflow command (`::error::…`,
   * `::add-mask::…`, `##[…]`, after any whitespace the runner trims): only annotations we build may be that.
   */
  terminal(text: string): string {
    const plain = this.redact(text).replace(TERMINAL_CONTROL, (m) => (m.length > 1 ? m : showControls(m)));
    return plain.replace(WORKFLOW_COMMAND, '$1: ').replace(/##\[/g, '# #[');
  }
}

/**
 * The colours and weights picocolors paints with (bold, dim, red, green, yellow, gray and their resets),
 * kept whole; any other control character, ours or not, becomes a visible escape.
 */
const TERMINAL_CONTROL = /\x1b\[(?:0|1|2|22|31|32|33|39|90)m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;
/** .NET's TrimStart, which the GitHub runner applies before looking for "::", trims all of these. */
const WORKFLOW_COMMAND = /^([\s\u0085\u180e]*):(?=:)/gm;

function walk(value: unknown, b: Boundary, limits: Limits, depth: number): unknown {
  if (typeof value === 'string') return b.text(value, limits.string);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= limits.depth) return `[nested deeper than ${limits.depth} levels: cut by chatprobe]`;
  if (Array.isArray(value)) {
    const items = value.slice(0, limits.items).map((v) => walk(v, b, limits, depth + 1));
    if (value.length > limits.items) items.push(`[${value.length - limits.items} more items cut by chatprobe]`);
    return items;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (++n > limits.items) {
      setOwn(out, '…', `more keys cut by chatprobe`);
      break;
    }
    setOwn(out, b.text(key, 200), walk(v, b, limits, depth + 1));
  }
  return out;
}

