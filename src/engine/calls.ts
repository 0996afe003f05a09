import { HttpClient, type HttpRequest, type HttpResponse } from '../http/client.js';
import type { Redactor } from '../http/redact.js';
import type { CallRecord } from '../report/model.js';
import { toExchange, toStreamExchange, type Exchange, type StreamExchange } from './exchange.js';
import { describeFailure } from './verdicts.js';

/** Headers kept in the trace: rate limits, retry hints and request ids (values redacted). */
const KEPT_HEADERS =
  /^(x-ratelimit-.*|retry-after|cf-ray|x-request-id|x-oneapi-request-id|apim-request-id|x-ds-trace-id|request-id|openai-processing-ms|openai-model|x-litellm-.*|x-openrouter-.*)$/;

const INTERRUPTED: HttpResponse = {
  status: undefined,
  headers: {},
  chunks: [],
  bytes: 0,
  truncated: false,
  headersMs: undefined,
  durationMs: 0,
  transport: { code: 'network', message: 'interrupted' },
};

/** Sends calls, numbers them, turns them into Exchanges and keeps one trace record per call. */
export class CallLog {
  readonly trace: CallRecord[] = [];
  private seq = 0;

  constructor(
    private readonly client: HttpClient,
    private readonly redact: Redactor,
    private readonly signal: AbortSignal | undefined,
  ) {}

  send(req: HttpRequest, probe: string, model: string | undefined): Promise<Exchange> {
    return this.call(req, probe, model, false);
  }

  stream(req: HttpRequest, probe: string, model: string | undefined): Promise<StreamExchange> {
    return this.call(req, probe, model, true) as Promise<StreamExchange>;
  }

  private async call(req: HttpRequest, probe: string, model: string | undefined, stream: boolean): Promise<Exchange> {
    const id = `c${++this.seq}`;
    const at = new Date().toISOString();
    const res = this.signal?.aborted ? INTERRUPTED : await this.client.send(req);
    const x = stream ? toStreamExchange(id, req, res, this.redact) : toExchange(id, req, res, this.redact);
    const record: CallRecord = { id, at, probe, method: req.method, path: req.path, durationMs: x.durationMs, bytes: x.bytes };
    if (model !== undefined) record.model = model;
    if (x.status !== undefined) record.status = x.status;
    const ttft = (x as Partial<StreamExchange>).ttftMs;
    if (ttft !== undefined) record.ttftMs = ttft;
    if (x.requestId) record.requestId = x.requestId;
    if (x.usage) record.usage = x.usage;
    if (x.truncated) record.truncated = true;
    if (x.cause) record.cause = x.cause;
    if (!x.ok) record.error = describeFailure(x).slice(0, 500);
    const kept = Object.entries(x.headers).filter(([k]) => KEPT_HEADERS.test(k));
    if (kept.length > 0) record.headers = Object.fromEntries(kept);
    this.trace.push(record);
    return x;
  }
}
