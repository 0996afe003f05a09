import type { CallRecord, ModelEntry, Report } from '../report/model.js';
import { createRedactor, redactJoined, type Redact, type Redactor, type RedactorOptions, type RefusedSecret, type Secret } from './secrets.js';
import { clip, showControls } from './text.js';
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

  report(report: Report): Report {
    const { models, ...rest } = report;
    return { ...this.clean(rest), models: models.map((m) => this.model(m)) };
  }

  trace(records: readonly CallRecord[]): CallRecord[] {
    return records.map((r) => this.clean(r));
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

