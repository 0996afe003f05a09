import { closeSync, createReadStream, openSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Boundary } from '../boundary/boundary.js';
import type { RecordedCall } from '../engine/recorded-call.js';
import { redactStreamPieces } from '../boundary/stream-pieces.js';
import { isCredentialHeader, REDACTED } from '../boundary/secrets.js';

/**
 * The recorded exchanges of a run, as a HAR 1.2 file (exchanges.har): the format browsers' developer
 * tools, proxies and HTTP tools read, so a cell's evidence opens where people already look. Each entry
 * carries chatprobe's call id (`_callId`, the `evidence` of the cells and the ids of trace.jsonl), probe
 * and model, and for a stream its events with their arrival times (`_events`). Bodies are capped per call
 * (the cap is said in the entry); the key is never in it: the Authorization header is recorded by name.
 */

export { capBody, RECORDED_BODY_CHARS, type RecordedCall } from '../engine/recorded-call.js';

/** The file, beside the other reports. */
export const HAR_FILE = 'exchanges.har';

/** How the output boundary bounds an entry: its bodies may be longer than a report's strings. */
export const HAR_LIMITS = { string: 70_000, depth: 16, items: 1000 };

/**
 * How a run records each call as it completes (audit and passthrough alike): its HAR entry through the
 * output boundary (bounded, cleaned, then the serialised entry redacted once more) into `writer`.
 */
export function recordCalls(writer: HarWriter, boundary: Boundary): (call: RecordedCall) => void {
  // `_model` is the model's id as report.json names it (Boundary.modelId), so the evidence lines up.
  return (call) => {
    const named = call.model === undefined ? call : { ...call, model: boundary.modelId(call.model) };
    writer.add(boundary.redact(JSON.stringify(boundary.clean(harEntry(joinedRedacted(named, boundary)), HAR_LIMITS))));
  };
}

/**
 * A stream's record with the secrets its pieces hold when joined removed (boundary/stream-pieces.ts): in
 * its events, and in its text, each read as a reader joins them.
 */
function joinedRedacted(call: RecordedCall, boundary: Boundary): RecordedCall {
  if (!call.events) return call;
  const [responseText] = redactStreamPieces([call.responseText], boundary);
  const data = redactStreamPieces(call.events.map((e) => e.data), boundary);
  return { ...call, responseText: responseText!, events: call.events.map((e, i) => (data[i] === e.data ? e : { ...e, data: data[i]! })) };
}

/** Characters of entries HarWriter holds before it writes them (bounded, whatever the run's length). */
const HAR_WRITE_CHARS = 256 * 1024;


/**
 * Characters of stream events an entry keeps: with the two bodies, an entry stays under ~400 KB, so a
 * reader taking exchanges.har a line at a time holds one bounded line (1,000 events of 70,000 characters
 * each were a 70 MB line).
 */
export const RECORDED_EVENT_CHARS = 256 * 1024;

/** A stream's events up to RECORDED_EVENT_CHARS of data, the cut said in `cuts`. */
function capEvents(events: { at: number; data: string }[], cuts: string[]): { at: number; data: string }[] {
  let chars = 0;
  for (let i = 0; i < events.length; i++) {
    chars += events[i]!.data.length;
    if (chars > RECORDED_EVENT_CHARS) {
      cuts.push(`the stream's events are recorded up to ${RECORDED_EVENT_CHARS} characters of data: ${i} of ${events.length} kept`);
      return events.slice(0, i);
    }
  }
  return events;
}

const headerList = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));

/**
 * A response's headers, credentials' values replaced (isCredentialHeader): a server's session cookie or
 * upstream key is no one's to republish. (The request's are ours: the key recorded by its variable's name,
 * a secret --header redacted as a secret, the auth probes' made-up keys kept for their curl commands.)
 */
const responseHeaderList = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value: isCredentialHeader(name) ? REDACTED : value }));

/** One HAR entry. */
export function harEntry(c: RecordedCall): Record<string, unknown> {
  const mime = c.responseHeaders['content-type'] ?? '';
  const entry: Record<string, unknown> = {
    startedDateTime: c.at,
    time: c.durationMs,
    request: {
      method: c.method,
      url: c.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(c.requestHeaders),
      queryString: [],
      ...(c.requestBody !== undefined ? { postData: { mimeType: 'application/json', text: c.requestBody } } : {}),
      headersSize: -1,
      bodySize: c.requestBody?.length ?? 0,
    },
    response: {
      status: c.status ?? 0,
      statusText: c.status === undefined ? (c.error ?? 'no answer') : '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: responseHeaderList(c.responseHeaders),
      content: { size: c.bytes, mimeType: mime, text: c.responseText },
      redirectURL: c.responseHeaders.location ?? '',
      headersSize: -1,
      bodySize: c.bytes,
    },
    cache: {},
    timings: { send: 0, wait: c.ttftMs ?? c.durationMs, receive: c.ttftMs === undefined ? 0 : Math.max(0, c.durationMs - c.ttftMs) },
    _callId: c.callId,
    _probe: c.probe,
  };
  if (c.model !== undefined) entry._model = c.model;
  const cuts = [...c.cuts];
  if (c.events) entry._events = capEvents(c.events, cuts);
  if (cuts.length > 0) entry._cuts = cuts;
  if (c.error) entry._error = c.error;
  return entry;
}

/** Writers whose file is not in place yet: completed at the process's exit, if it quits before their run ends. */
const OPEN = new Set<HarWriter>();
let exitHooked = false;

/** Where a writer's file goes when the process quits before its run ends: beside the complete one, never in its place. */
export const interruptedPath = (path: string) => path.replace(/(\.har)?$/, '.interrupted.har');

/**
 * Writes exchanges.har as the run goes, in batches of HAR_WRITE_CHARS (memory does not grow with the run), into a
 * temporary file renamed when it is complete. Entries are given already through the output boundary. A
 * process that quits before the file is in place (a second Ctrl-C, a crash) still completes it with the
 * calls it recorded (they were sent to the target), as exchanges.interrupted.har: the reports of the last
 * complete run in the folder keep the exchanges their evidence names, and no temporary file is left.
 */
export class HarWriter {
  private fd: number | undefined;
  private first = true;
  private readonly tmp: string;
  /** Entries not yet written: written together once they pass HAR_WRITE_CHARS (a write per call cost more than the entry). */
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(
    private readonly path: string,
    version: string,
  ) {
    this.tmp = `${path}.${process.pid}.tmp`;
    this.fd = openSync(this.tmp, 'w');
    writeSync(this.fd, `{"log":{"version":"1.2","creator":{"name":"chatprobe","version":${JSON.stringify(version)}},"entries":[\n`);
    OPEN.add(this);
    if (!exitHooked) {
      exitHooked = true;
      // Synchronous, as an exit handler must be. A disk that fails now cannot be reported any more: that
      // writer's temporary file stays.
      process.on('exit', () => {
        for (const w of OPEN) {
          try {
            w.finish();
            renameSync(w.tmp, interruptedPath(w.path));
          } catch {
            // kept as it is
          }
        }
        OPEN.clear();
      });
    }
  }

  /** One entry, serialised and redacted by the caller. */
  add(json: string): void {
    if (this.fd === undefined) return;
    this.pending.push(this.first ? json : `,\n${json}`);
    this.first = false;
    this.pendingChars += json.length;
    if (this.pendingChars >= HAR_WRITE_CHARS) this.flush();
  }

  private flush(): void {
    if (this.fd === undefined || this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }

  /** Where the file goes if the process quits now, before it is in place (undefined once it is). */
  get ifInterrupted(): string | undefined {
    return OPEN.has(this) ? interruptedPath(this.path) : undefined;
  }

  /** Completes the file and puts it in place; returns its path. */
  close(): string {
    this.finish();
    return this.commit();
  }

  /**
   * Completes the file under its temporary name, which it returns: readable whole (report.html shows its
   * exchanges) before `commit` puts it in place beside the reports written from the same run.
   */
  finish(): string {
    if (this.fd !== undefined) {
      this.flush();
      writeSync(this.fd, '\n]}}\n');
      closeSync(this.fd);
      this.fd = undefined;
    }
    return this.tmp;
  }

  /**
   * Puts the finished file in place (synchronous: see commitStaged); returns its path. An interrupted
   * file an earlier run left beside it goes: the folder now holds one complete run, and no stray record.
   */
  commit(): string {
    if (!OPEN.has(this)) return this.path;
    renameSync(this.tmp, this.path);
    OPEN.delete(this);
    try {
      rmSync(interruptedPath(this.path), { force: true });
    } catch {
      // A stray record that cannot be removed is no reason to fail a run whose files are in place.
    }
    return this.path;
  }

  /** Drops the unfinished file (a run that never started). */
  abandon(): void {
    if (!OPEN.has(this)) return;
    OPEN.delete(this);
    this.pending = [];
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    try {
      unlinkSync(this.tmp);
    } catch {
      // already gone
    }
  }
}

/** What the readers of exchanges.har take from an entry (the fields harEntry writes). */
export interface HarEntryView {
  _callId: string;
  _probe?: string;
  _model?: string;
  time: number;
  request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text: string } };
  response: { status: number; statusText?: string; headers: { name: string; value: string }[]; content: { text?: string; mimeType?: string; size?: number } };
  timings?: { wait?: number };
  _events?: { at: number; data: string }[];
  _cuts?: string[];
  _error?: string;
}

/**
 * Each entry of an exchanges.har that HarWriter wrote, one at a time: it writes one entry per line, so the
 * file is read a line at a time and never held whole. Lines that are not an entry (the head, the tail, a
 * line cut by a run that was killed) are skipped and counted. Resolves to the number of entries read.
 */
export async function eachHarEntry(path: string, fn: (entry: HarEntryView) => void | Promise<void>): Promise<{ entries: number; skipped: number }> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let entries = 0;
  let skipped = 0;
  for await (const raw of lines) {
    const line = raw.endsWith(',') ? raw.slice(0, -1) : raw;
    if (!line.startsWith('{"startedDateTime"')) continue;
    let entry: HarEntryView;
    try {
      entry = JSON.parse(line) as HarEntryView;
    } catch {
      skipped++;
      continue;
    }
    entries++;
    await fn(entry);
  }
  return { entries, skipped };
}
