import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';
import type { HttpResponse } from './client.js';

/**
 * The Content-Encodings chatprobe decodes (the ones clients decode). A Map, not an object: the name comes
 * from the server, and "constructor" must not find Object's.
 */
const DECODERS = new Map<string, (bytes: Buffer, o: ZlibOptions) => Buffer>([
  ['gzip', gunzipSync],
  ['x-gzip', gunzipSync],
  // "deflate" is meant as zlib-wrapped, and often sent raw: both are tried, as browsers do.
  [
    'deflate',
    (bytes, o) => {
      try {
        return inflateSync(bytes, o);
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw err;
        return inflateRawSync(bytes, o);
      }
    },
  ],
  ['br', (bytes, o) => brotliDecompressSync(bytes, o as never)],
]);

/**
 * A body the server compressed though chatprobe asked for no encoding (it sends no Accept-Encoding, which
 * allows any): decoded, as the OpenAI SDKs decode it, up to the same byte cap as a plain body (a small
 * body may inflate a thousandfold). The result holds the decoded body as one chunk at the time the last
 * byte came, and says the encoding (`encoding`); a body that does not decode says why (`undecodable`).
 * Any other response is returned as it is.
 */
export function decodeResponse(res: HttpResponse): HttpResponse {
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity' || res.encoding !== undefined || res.sunk) return res;
  // The exchange and the record both read the decoded body: it is decoded once.
  let decoded = DECODED.get(res);
  if (!decoded) DECODED.set(res, (decoded = decodeBody(res, encoding)));
  return decoded;
}

const DECODED = new WeakMap<HttpResponse, HttpResponse>();

function decodeBody(res: HttpResponse, encoding: string): HttpResponse {
  const decode = DECODERS.get(encoding);
  if (!decode) return { ...res, encoding, undecodable: `a body in the ${encoding} encoding, which chatprobe does not decode` };
  if (res.truncated) return { ...res, encoding, undecodable: `a ${encoding} body cut at chatprobe's cap before its end: not decoded` };
  const at = res.chunks.at(-1)?.at ?? res.durationMs;
  const bytes = Buffer.concat(res.chunks.map((c) => c.bytes));
  try {
    const plain = decode(bytes, { maxOutputLength: res.cap });
    return { ...res, encoding, chunks: plain.length > 0 ? [{ at, bytes: plain }] : [] };
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      // Our cap, not the server's failure: as a plain body past the cap, it is not read further.
      return { ...res, encoding, chunks: [], truncated: true };
    }
    return { ...res, encoding, undecodable: `a ${encoding} body that does not decode (${(err as Error).message})` };
  }
}

