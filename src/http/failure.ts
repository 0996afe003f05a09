// Transport failures as data: what failed on the wire, read once from the error's code and from how far
// the call had got (http/client.ts), then carried on the exchange and its record. Nothing reads a failure's
// message to decide anything: the message is for people.

/**
 * What went wrong on the wire, as data: read from the error's code (Node's, undici's, OpenSSL's) once, here,
 * and from how far the call had got, never from a message's text afterwards.
 * - `connect`: no connection (refused, no such host, unreachable);
 * - `connect-timeout`: no connection opened, or none of the pool's free, within --timeout;
 * - `tls`: the TLS handshake failed (TLS spoken to a plain-HTTP port, no protocol both sides speak);
 * - `certificate`: the server's certificate is not one Node trusts (a private CA, self-signed, expired,
 *   another host's name);
 * - `headers-timeout`: the request went out and no response headers came within --timeout;
 * - `body-stall`: the body stopped, no bytes for the idle timeout;
 * - `time-limit`: the answer was still coming when --timeout ran out;
 * - `reset`: the connection was closed or reset under the request (ECONNRESET, EPIPE, undici's "other side
 *   closed");
 * - `protocol`: the answer was not HTTP as undici reads it (a malformed status line, header or chunk, a
 *   lying Content-Length);
 * - `reader`: chatprobe's own reader of the body failed at its end;
 * - `stopped`: the run stopped (Ctrl-C, SIGTERM, --max-duration), and `code` says which;
 * - `other`: none of these, and the message says what.
 */
export const TRANSPORT_KINDS = [
  'connect',
  'connect-timeout',
  'tls',
  'certificate',
  'headers-timeout',
  'body-stall',
  'time-limit',
  'reset',
  'protocol',
  'reader',
  'stopped',
  'other',
] as const;
export type TransportKind = (typeof TRANSPORT_KINDS)[number];

/**
 * Why a call produced no complete HTTP response: the cause it maps to (`code`, engine/diagnose.ts), what
 * failed (`kind`), and the error's own words for people (`message`), which nothing decides on.
 */
export type TransportFailure =
  | { code: 'timeout'; kind: TransportKind; message: string }
  | { code: 'network'; kind: TransportKind; message: string }
  | StopFailure;

/**
 * Cut short, or never sent, because the run was stopped: by Ctrl-C or SIGTERM, or by --max-duration; or
 * never sent because it would have passed a spending cap (`budget`: engine/budget.ts, which names the cap
 * by its option key and limit, so a replay refuses it as the run did).
 */
export type StopFailure =
  | { code: 'interrupted' | 'deadline'; kind: 'stopped'; message: string }
  | { code: 'budget'; kind: 'stopped'; message: string; cap: string; limit: number };

/**
 * What a call the run's stop ended says: the stop's own cause (a deadline aborts with a TimeoutError, Ctrl-C
 * with none), never "no complete answer within --timeout", which blames the server.
 */
export function stopFailure(reason: unknown): StopFailure {
  return (reason as { name?: string } | undefined)?.name === 'TimeoutError'
    ? { code: 'deadline', kind: 'stopped', message: 'cut short: --max-duration ran out' }
    : { code: 'interrupted', kind: 'stopped', message: 'cut short: the run was interrupted (Ctrl-C, SIGTERM or SIGHUP)' };
}

/** A call's abort by the run's stop, carrying what the call then says (stopFailure). */
export class RunStopped extends Error {
  constructor(readonly failure: TransportFailure) {
    super(failure.message);
  }
}

/** The failure of a body's reader (a BodySink) at its end: ours, said with the reader's own message. */
export class ReaderFailed extends Error {}

/** How far a call had got when it failed: connecting (or waiting for a connection), awaiting headers, reading the body. */
export type CallPhase = 'connect' | 'headers' | 'body';

/** Error codes (Node's, undici's, OpenSSL's) by what failed; codes not listed are told by their family below. */
const KIND_OF_CODE: Record<string, TransportKind> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect-timeout',
  // The OS gave up on the TCP handshake.
  ETIMEDOUT: 'connect-timeout',
  UND_ERR_HEADERS_TIMEOUT: 'headers-timeout',
  UND_ERR_BODY_TIMEOUT: 'body-stall',
  ECONNREFUSED: 'connect',
  ENOTFOUND: 'connect',
  EAI_AGAIN: 'connect',
  EHOSTUNREACH: 'connect',
  ENETUNREACH: 'connect',
  EHOSTDOWN: 'connect',
  ENETDOWN: 'connect',
  EADDRNOTAVAIL: 'connect',
  ECONNRESET: 'reset',
  ECONNABORTED: 'reset',
  EPIPE: 'reset',
  // undici's "other side closed": the connection ended under the request.
  UND_ERR_SOCKET: 'reset',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'protocol',
  UND_ERR_HEADERS_OVERFLOW: 'protocol',
  // OpenSSL reading an HTTP answer as a TLS record (a plain-HTTP port), or a handshake gone wrong.
  EPROTO: 'tls',
};

/** What failed, from the error's code: a code stands for one failure (undici lib/core/errors.js, Node's errno names). */
export function kindOfCode(code: string | undefined): TransportKind {
  if (code === undefined) return 'other';
  const known = KIND_OF_CODE[code];
  if (known) return known;
  // Node's certificate codes: DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE,
  // ERR_TLS_CERT_ALTNAME_INVALID …
  if (/CERT|^UNABLE_TO_(VERIFY|GET_ISSUER)|SELF_SIGNED/.test(code)) return 'certificate';
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'tls';
  // llhttp's parse errors (HPE_INVALID_CONSTANT, HPE_INVALID_CHUNK_SIZE …).
  if (code.startsWith('HPE_')) return 'protocol';
  return 'other';
}

/** The kinds that end a call for want of time: its cause is `timeout`. */
const TIMEOUT_KINDS: ReadonlySet<TransportKind> = new Set(['connect-timeout', 'headers-timeout', 'body-stall', 'time-limit']);

/**
 * The transport failure an error makes, `phase` being how far the call had got: the one place that reads
 * an error's code. Our own deadline (a TimeoutError) is told by the phase it cut: no connection, no
 * headers, or a body still coming.
 */
export function describeTransportFailure(err: unknown, phase: CallPhase = 'body'): TransportFailure {
  if (err instanceof RunStopped) return err.failure;
  if (err instanceof ReaderFailed) return { code: 'network', kind: 'reader', message: err.message };
  const e = err as { name?: string; code?: unknown; message?: string; cause?: { code?: unknown; message?: string } };
  // Node's error codes are strings; a DOMException's numeric code (23 for a timeout) says nothing to a reader.
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  if (e?.name === 'TimeoutError') {
    const kind: TransportKind = phase === 'connect' ? 'connect-timeout' : phase === 'headers' ? 'headers-timeout' : 'time-limit';
    return { code: 'timeout', kind, message: 'no complete answer within --timeout' };
  }
  // OpenSSL's messages end with a line break.
  const message = `${(e?.message ?? String(err)).trim()}${e?.cause?.message ? ` (${e.cause.message.trim()})` : ''}`;
  // undici's parse error carries a code (HPE_…) only for some of what llhttp rejects: its name says it.
  const kind = e?.name === 'HTTPParserError' ? 'protocol' : kindOfCode(code);
  // An abort chatprobe did not ask for (undici's own: UND_ERR_ABORTED): the answer did not come in time.
  if (e?.name === 'AbortError') return { code: 'timeout', kind: 'time-limit', message: code ? `${code}: ${message}` : message };
  if (TIMEOUT_KINDS.has(kind)) return { code: 'timeout', kind, message: code ? `${code}: ${message}` : message };
  return { code: 'network', kind, message: code && !message.includes(code) ? `${code}: ${message}` : message };
}
