import { oneLine } from '../text.js';
import { REDACTED } from '../boundary/secrets.js';
import type { ProbeResult, Report } from '../results/model.js';
import { cellText } from './style.js';

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

/**
 * Characters that must not stand raw in a command meant to be pasted: every line terminator a shell, a
 * terminal or an editor acts on (LF, CR, VT, FF, NEL, U+2028, U+2029), the other C0 and C1 controls, tab
 * (pasted into an interactive shell, it completes), the invisible and bidirectional characters that make a
 * command read other than it runs (a model id with U+202E), and lone surrogates.
 */
const UNPASTEABLE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Inside $'…': the backslash, the quote, and every unpasteable character as an escape (`\n`, or its UTF-8 bytes). */
const ANSI_C_ESCAPED = new RegExp(`[\\\\']|${UNPASTEABLE.source}`, 'g');
const ANSI_C_NAMED: Partial<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const ansiCEscape = (c: string) => ANSI_C_NAMED[c] ?? [...Buffer.from(c, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

/**
 * A text as one shell word, exactly: the one quoting function of every command chatprobe prints to be
 * pasted (repro's output, the reproduce lines of matrix.md and report.html, curl commands). Single quotes
 * when the text is printable (nothing expands inside them, in any POSIX shell); otherwise ANSI-C quotes
 * (`$'…'`: bash, zsh, ksh, busybox) with the text's line breaks, controls and invisible characters as
 * escapes (`\n`, `\xHH` bytes), so the command stays on one line, a Markdown code span can hold it, and
 * what the reader sees is what runs. The quote is `\x27` there, not `\'`, which bash's history expansion
 * reads as the end of the quotes (a `!` after it would be expanded on paste).
 */
export function shellQuote(s: string): string {
  if (!UNPASTEABLE.test(s)) return `'${s.replace(/'/g, `'\\''`)}'`;
  return `$'${s.replace(ANSI_C_ESCAPED, ansiCEscape)}'`;
}

/** A word no shell reads other than as itself (a probe id): left bare; anything else is quoted. */
const PLAIN_WORD = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const shellWord = (s: string) => (PLAIN_WORD.test(s) ? s : shellQuote(s));

/** The command that prints a cell's reproduction, run in the reports folder. */
export const reproLine = (model: string, probe: string) => `chatprobe repro . ${shellQuote(model)} ${shellWord(probe)}`;

/** The key as a request is recorded with it: its variable's name, alone or as a bearer token. */
const KEY_SHOWN = /^(Bearer )?\$[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One recorded request as a curl command: the key as the variable it was read from, as recorded
 * (`Bearer $OPENAI_API_KEY`; double-quoted, so the shell puts it in), everything else quoted as sent; a stream read unbuffered; a body the record cut is said, since
 * the command then sends less than the audit did.
 */
export function curlOf(e: HarRequestView): string {
  const lines = [`curl -sS -X ${shellWord(e.request.method)} ${shellQuote(e.request.url)}`];
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

/**
 * A line of repro's output that is not a command: a comment, its text on one line (line breaks, carriage
 * returns, U+2028 and every other control as visible escapes), so no text of a server's (a model id, an
 * error message, what was seen) can end the comment and start a command when the output is pasted whole.
 */
const comment = (text: string) => `# ${oneLine(text)}`;

/**
 * `chatprobe repro`: what the cell required, expected and saw, then the curl commands of its evidence. The
 * whole output can be pasted into a shell: every line is a comment or a command whose words are quoted.
 */
export function renderRepro(report: Pick<Report, 'probes'>, cell: ProbeResult, entries: ReadonlyMap<string, HarRequestView>): string {
  const info = report.probes.find((p) => p.id === cell.probe);
  const lines = [
    comment(`${cell.model} ${cell.probe}: ${cellText(cell.verdict, cell.cause)}`),
    ...(info ? [comment(`requirement: ${info.requirement}`)] : []),
    comment(`seen: ${cell.observed}`),
    ...cell.findings.map((f) => comment(`finding (${f.severity}) ${f.code}: ${f.message}`)),
    '',
  ];
  if (cell.evidence.length === 0) lines.push(comment('no call is evidence for this cell'));
  for (const id of cell.evidence) {
    const e = entries.get(id);
    if (!e) {
      lines.push(comment(`${id}: not in exchanges.har`), '');
      continue;
    }
    const answer = e.response.status === 0 ? e.response.statusText || 'no answer' : `HTTP ${e.response.status}`;
    lines.push(comment(`${id} (${e._probe ?? 'call'}): the audit got ${answer}${e._error && e.response.status !== 0 ? `, then ${e._error}` : ''}`));
    for (const cut of e._cuts ?? []) lines.push(comment(`note: ${cut}`));
    lines.push(curlOf(e), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
