import { oneLine } from '../boundary/text.js';
import { REDACTED } from '../boundary/secrets.js';
import type { ProbeResult, Report } from './model.js';
import { cellText } from './style.js';
import { EVERY_PROBE, rowAsResult } from './view.js';

/** What repro reads of an exchanges.har entry. */
export interface HarRequestView {
  _callId: string;
  _probe?: string;
  request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text: string } };
  response: { status: number; statusText?: string };
  _cuts?: string[];
  /** Why the call failed, as the trace says (a timeout after the headers came, a broken stream). */
  _error?: string;
}

/** Verdicts worth reproducing: what someone must fix or look at. */
export const REPRODUCIBLE: ReadonlySet<string> = new Set(['fail', 'warn', 'ignored', 'rejected', 'error']);

/** The command that prints a cell's reproduction, run in the reports folder. */
export const reproLine = (model: string, probe: string) => `chatprobe repro . ${shellQuote(model)} ${probe}`;

/** A text as one single-quoted shell word. */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The key as a request is recorded with it: its variable's name, alone or as a bearer token. */
const KEY_SHOWN = /^(Bearer )?\$[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One recorded request as a curl command: the key as the variable it was read from, as recorded
 * (`Bearer $OPENAI_API_KEY`; double-quoted, so the shell puts it in), everything else quoted as sent; a stream read unbuffered; a body the record cut is said, since
 * the command then sends less than the audit did.
 */
export function curlOf(e: HarRequestView): string {
  const lines = [`curl -sS -X ${e.request.method} ${shellQuote(e.request.url)}`];
  const body = e.request.postData?.text;
  if (body && /"stream"\s*:\s*true/.test(body)) lines[0] += ' -N';
  for (const h of e.request.headers) {
    if (h.name === 'authorization' && KEY_SHOWN.test(h.value)) lines.push(`-H "Authorization: ${h.value}"`);
    else if (h.value.includes(REDACTED)) {
      // A secret header (--header X-Api-Key: …) is recorded redacted: the command reads it from a variable
      // and refuses to run without it, rather than send "[REDACTED]".
      // The name stays single-quoted (header names may hold $ and `); the variable's is letters, digits and _.
      const name = h.name.replace(/[^A-Za-z0-9]/g, '_').toUpperCase().replace(/^(?=[0-9])/, 'H_');
      lines.push(`-H ${shellQuote(`${h.name}: `)}"\${${name}:?set ${name} to the value of that header}"`);
    } else if (h.name !== 'accept') lines.push(`-H ${shellQuote(`${h.name}: ${h.value}`)}`);
  }
  if (body !== undefined) lines.push(`--data-raw ${shellQuote(body)}`);
  return lines.join(' \\\n  ');
}

/** The cell of `model` × `probe`, or of the endpoint (`(endpoint)`) and a not-probed row's one line. */
export function findCell(report: Report, model: string, probe: string): ProbeResult | undefined {
  const cell = report.results.find((r) => r.model === model && r.probe === probe);
  if (cell) return cell;
  const row = report.models.find((m) => m.id === model && m.notRun);
  return row ? rowAsResult(row, EVERY_PROBE) : undefined;
}

/** `chatprobe repro`: what the cell required, expected and saw, then the curl commands of its evidence. */
export function renderRepro(report: Report, cell: ProbeResult, entries: ReadonlyMap<string, HarRequestView>): string {
  const info = report.probes.find((p) => p.id === cell.probe);
  const lines = [
    `${oneLine(cell.model)} ${cell.probe}: ${cellText(cell.verdict, cell.cause)}`,
    ...(info ? [`requirement: ${info.requirement}`] : []),
    `seen: ${cell.observed}`,
    ...cell.findings.map((f) => `finding (${f.severity}) ${f.code}: ${f.message}`),
    '',
  ];
  if (cell.evidence.length === 0) lines.push('# no call is evidence for this cell');
  for (const id of cell.evidence) {
    const e = entries.get(id);
    if (!e) {
      lines.push(`# ${id}: not in exchanges.har`, '');
      continue;
    }
    const answer = e.response.status === 0 ? e.response.statusText || 'no answer' : `HTTP ${e.response.status}`;
    lines.push(`# ${id} (${e._probe ?? 'call'}): the audit got ${answer}${e._error && e.response.status !== 0 ? `, then ${oneLine(e._error)}` : ''}`);
    for (const cut of e._cuts ?? []) lines.push(`# note: ${cut}`);
    lines.push(curlOf(e), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
