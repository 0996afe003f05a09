import type { Rejection, ServerSettings } from './profile.js';

/** What the reference server sends back: status, headers and the body text. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Refusal = 'invalid_json' | 'invalid_request' | 'unknown_model';

const json = (status: number, body: unknown): Reply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

export function openaiError(status: number, message: string, type: string, code: string | null, param: string | null = null): Reply {
  return json(status, { error: { message, type, param, code } });
}

/** A feature refused as the profile says: in the OpenAI envelope, or flat as Node gateways relay it. */
export function rejection(r: Rejection, param: string | null): Reply {
  if (r.shape === 'flat') return json(r.status, { error: STATUS_TEXT[r.status] ?? 'Error', message: r.message });
  return openaiError(r.status, r.message, r.type, r.code, param);
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 422: 'Unprocessable Entity', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };

/**
 * An invalid request refused in the style of the server the profile imitates. The wordings and statuses
 * are those of the real servers: new-api's 500 `new_api_error` and 503 "无可用渠道", FastAPI's 422
 * `detail`, old vLLM's top-level `object: "error"`, SGLang's plain text, an nginx HTML page.
 */
export function refuse(
  style: ServerSettings['errorStyle'],
  unknownModel: ServerSettings['unknownModel'],
  kind: Refusal,
  message: string,
  param: string | null,
): Reply {
  if (kind === 'unknown_model') {
    message = `The model \`${param}\` does not exist.`;
    if (unknownModel === 'new-api') {
      return json(503, {
        error: { message: `当前分组 default 下对于模型 ${param ?? ''} 无可用渠道 (request id: 20260101000000000000000)`, type: 'new_api_error', param: '', code: 'model_not_found' },
      });
    }
    if (style === 'openai' || style === 'new-api') {
      return openaiError(404, `The model \`${param}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found', 'model');
    }
  }
  switch (style) {
    case 'openai':
      return openaiError(400, message, 'invalid_request_error', kind === 'invalid_json' ? null : 'invalid_value', param);
    case 'new-api':
      return json(500, { error: { message: `请求参数错误: ${message}`, type: 'new_api_error', param: '', code: 'convert_request_failed' } });
    case 'fastapi':
      return json(422, { detail: [{ loc: ['body', param ?? 'body'], msg: message, type: kind === 'invalid_json' ? 'json_invalid' : 'value_error' }] });
    case 'top-level':
      return json(400, { object: 'error', message, type: 'BadRequestError', param, code: 400 });
    case 'text':
      return { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `Bad Request: ${message}` };
    case 'html':
      return {
        status: 400,
        headers: { 'content-type': 'text/html' },
        body: '<html><head><title>400 Bad Request</title></head><body><center><h1>400 Bad Request</h1></center><hr><center>nginx</center></body></html>',
      };
  }
}
