/**
 * JSON Schemas of the OpenAI chat-completions wire shapes, in two tiers:
 * - lenient: what a client must be able to rely on to read the answer at all (a MUST; deviation fails);
 * - strict: every field the OpenAI reference marks required (a SHOULD; deviation warns, fails with --strict).
 * Extra keys are allowed everywhere: unknown fields are findings to record, never failures.
 */
type Schema = Record<string, unknown>;

const int = { type: 'integer', minimum: 0 };
const nullableString = { type: ['string', 'null'] };

const usage: Schema = {
  type: 'object',
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  properties: { prompt_tokens: int, completion_tokens: int, total_tokens: int },
};

const toolCall: Schema = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string' }, arguments: { type: 'string' } },
    },
  },
};

export const completionLenient: Schema = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string', minLength: 1 },
    object: { const: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: int,
          message: {
            type: 'object',
            required: ['role'],
            properties: {
              role: { const: 'assistant' },
              content: nullableString,
              tool_calls: { type: 'array', items: toolCall },
            },
          },
          finish_reason: nullableString,
        },
      },
    },
    usage,
  },
};

export const completionStrict: Schema = {
  type: 'object',
  required: ['usage'],
  properties: {
    system_fingerprint: nullableString,
    choices: {
      items: {
        type: 'object',
        required: ['logprobs'],
        properties: {
          logprobs: { type: ['object', 'null'] },
          message: {
            type: 'object',
            required: ['content', 'refusal'],
            properties: { refusal: nullableString },
          },
        },
      },
    },
  },
};

export const chunkLenient: Schema = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string', minLength: 1 },
    object: { const: 'chat.completion.chunk' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'delta'],
        properties: {
          index: int,
          delta: {
            type: 'object',
            properties: {
              role: { type: 'string' },
              content: nullableString,
              tool_calls: { type: 'array' },
            },
          },
          finish_reason: nullableString,
        },
      },
    },
    usage: { oneOf: [usage, { type: 'null' }] },
  },
};

export const chunkStrict: Schema = {
  type: 'object',
  properties: {
    choices: {
      items: { type: 'object', required: ['finish_reason'] },
    },
  },
};

export const modelListLenient: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      items: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } },
    },
  },
};

export const modelListStrict: Schema = {
  type: 'object',
  required: ['object'],
  properties: {
    object: { const: 'list' },
    data: {
      items: {
        type: 'object',
        required: ['object', 'created', 'owned_by'],
        properties: { object: { const: 'model' }, created: { type: 'integer' }, owned_by: { type: 'string' } },
      },
    },
  },
};

export const errorLenient: Schema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  },
};

export const errorStrict: Schema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      required: ['type', 'param', 'code'],
      properties: {
        type: nullableString,
        param: nullableString,
        code: { type: ['string', 'integer', 'null'] },
      },
    },
  },
};
