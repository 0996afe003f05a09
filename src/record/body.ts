import { StringDecoder } from 'node:string_decoder';
import type { BodyChunk } from '../http/client.js';
import type { RecordedChunk, RecordedResponse } from './format.js';

/**
 * A body's chunks as the record keeps them: as text when the body is UTF-8 (`text`), else as base64
 * (`raw`), each with its arrival time. `clean` removes secrets from the texts (the output boundary's
 * redaction), keeping one piece per chunk; a body that is not UTF-8 but held a secret is kept as its
 * redacted text (`lossy`), never with the secret.
 *
 * A stream's chunks (`byLines`) are first cut at line ends: the part of a chunk after its last line break
 * goes with the next chunk. A stream reader (wire/sse.ts) acts on whole lines only, and an event's time is
 * the time of the chunk that ended it, so the events and their times read from the record are the run's;
 * and each chunk then holds whole lines, which the redaction of a stream's pieces reads
 * (boundary/stream-pieces.ts), and whole UTF-8 sequences.
 */
export function encodeBody(
  chunks: readonly BodyChunk[],
  byLines: boolean,
  clean: (pieces: string[]) => readonly string[],
): Pick<RecordedResponse, 'text' | 'raw' | 'lossy'> {
  if (chunks.length === 0) return {};
  const parts = byLines ? atLineEnds(chunks) : chunks;
  const decoder = new StringDecoder('utf8');
  const pieces = parts.map((c) => decoder.write(bufferOf(c.bytes)));
  const rest = decoder.end();
  if (rest) pieces[pieces.length - 1] += rest;
  // Bytes that decode without a replacement character, to as many bytes as came, are UTF-8 (the decoder
  // puts U+FFFD for each bad sequence); a body that sent U+FFFD itself is compared byte for byte.
  const joined = pieces.join('');
  const bytes = parts.reduce((n, c) => n + c.bytes.length, 0);
  const exact = Buffer.byteLength(joined, 'utf8') === bytes && (!joined.includes('\uFFFD') || Buffer.from(joined, 'utf8').equals(Buffer.concat(parts.map((c) => c.bytes))));
  const cleaned = clean(pieces);
  const changed = cleaned.some((p, i) => p !== pieces[i]);
  if (exact || changed) {
    const text: RecordedChunk[] = parts.map((c, i) => [c.at, cleaned[i]!]);
    return exact ? { text } : { text, lossy: true };
  }
  return { raw: parts.map((c) => [c.at, bufferOf(c.bytes).toString('base64')]) };
}

/** The chunks a recorded body is read as again. */
export function decodeBody(res: Pick<RecordedResponse, 'text' | 'raw'>): BodyChunk[] {
  if (res.text) return res.text.map(([at, data]) => ({ at, bytes: Buffer.from(data, 'utf8') }));
  if (res.raw) return res.raw.map(([at, data]) => ({ at, bytes: Buffer.from(data, 'base64') }));
  return [];
}

const bufferOf = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** The chunks cut after their last line break (CR or LF), the rest carried to the next; the last kept whole. */
export function atLineEnds(chunks: readonly BodyChunk[]): BodyChunk[] {
  const out: BodyChunk[] = [];
  let carry: Buffer | undefined;
  chunks.forEach((c, i) => {
    const bytes = carry ? Buffer.concat([carry, c.bytes]) : bufferOf(c.bytes);
    carry = undefined;
    if (i === chunks.length - 1) {
      out.push({ at: c.at, bytes });
      return;
    }
    let cut = bytes.length;
    while (cut > 0 && bytes[cut - 1] !== 0x0a && bytes[cut - 1] !== 0x0d) cut--;
    if (cut > 0) out.push({ at: c.at, bytes: cut === bytes.length ? bytes : bytes.subarray(0, cut) });
    if (cut < bytes.length) carry = bytes.subarray(cut);
  });
  return out;
}
