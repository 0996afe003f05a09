/**
 * Child of bench/memory.ts: reads one stream from the URL given, through chatprobe's own call path
 * (CallLog.stream: the SSE reader, the assembler, the capped record), and prints its peak RSS and what it
 * judged, as one JSON line.
 */
import { CallLog } from '../src/engine/calls.js';
import { HttpClient } from '../src/http/client.js';

const [base] = process.argv.slice(2);
const client = new HttpClient({ baseUrl: base!, apiKey: undefined, headers: {}, timeoutMs: 600_000 });
const log = new CallLog(client, undefined);
const x = await log.stream({ method: 'POST', path: '/chat/completions', body: { stream: true, max_tokens: 1 } }, 'bench', 'm');
await client.close();
console.log(JSON.stringify({ peakKb: process.resourceUsage().maxRSS, bytes: x.bytes, chunks: x.assembled?.chunkCount, done: x.assembled?.done, truncated: x.truncated }));
