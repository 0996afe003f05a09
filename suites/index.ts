import type { ProbeDefinition } from '../src/engine/probe.js';
import authBadKey from './auth/bad-key.js';
import authMissingKey from './auth/missing-key.js';
import authNoBearer from './auth/no-bearer.js';
import chatBasic from './chat/basic.js';
import chatErrorIn2xx from './chat/error-in-2xx.js';
import chatFinishReason from './chat/finish-reason.js';
import chatModelEcho from './chat/model-echo.js';
import chatSchema from './chat/schema.js';
import chatUsage from './chat/usage.js';
import errorsInvalidRole from './errors/invalid-role.js';
import errorsMalformedJson from './errors/malformed-json.js';
import errorsMissingMessages from './errors/missing-messages.js';
import errorsUnknownModel from './errors/unknown-model.js';
import errorsWrongType from './errors/wrong-type.js';
import errorsOutOfRange from './errors/out-of-range.js';
import modelsList from './models/list.js';
import parametersMaxTokens from './parameters/max-tokens.js';
import parametersMaxCompletionTokens from './parameters/max-completion-tokens.js';
import parametersTemperature from './parameters/temperature.js';
import parametersTopP from './parameters/top-p.js';
import parametersSeed from './parameters/seed.js';
import parametersStop from './parameters/stop.js';
import parametersStopMany from './parameters/stop-many.js';
import parametersN from './parameters/n.js';
import parametersPresencePenalty from './parameters/presence-penalty.js';
import parametersFrequencyPenalty from './parameters/frequency-penalty.js';
import parametersLogprobs from './parameters/logprobs.js';
import parametersLogitBias from './parameters/logit-bias.js';
import parametersJsonObject from './parameters/response-format-json-object.js';
import parametersJsonSchema from './parameters/response-format-json-schema.js';
import parametersTools from './parameters/tools.js';
import parametersToolChoiceRequired from './parameters/tool-choice-required.js';
import parametersToolChoiceNone from './parameters/tool-choice-none.js';
import parametersToolChoiceNamed from './parameters/tool-choice-named.js';
import parametersParallelToolCalls from './parameters/parallel-tool-calls.js';
import parametersUser from './parameters/user.js';
import parametersMetadata from './parameters/metadata.js';
import parametersUnknownField from './parameters/unknown-field.js';
import parametersReasoningEffort from './parameters/reasoning-effort.js';
import parametersStreamOptionsWithoutStream from './parameters/stream-options-without-stream.js';
import rolesSystem from './roles/system.js';
import rolesDeveloper from './roles/developer.js';
import rolesSystemParts from './roles/system-parts.js';
import rolesHistory from './roles/history.js';
import rolesContentParts from './roles/content-parts.js';
import rolesImage from './roles/image.js';
import rolesToolResult from './roles/tool-result.js';
import rolesName from './roles/name.js';
import rolesConsecutiveUser from './roles/consecutive-user.js';
import rolesAssistantPrefill from './roles/assistant-prefill.js';
import rolesEmptyContent from './roles/empty-content.js';
import streamingBasic from './streaming/basic.js';
import streamingBuffered from './streaming/buffered.js';
import streamingChunkSchema from './streaming/chunk-schema.js';
import streamingContentType from './streaming/content-type.js';
import streamingDone from './streaming/done.js';
import streamingErrorInBand from './streaming/error-in-band.js';
import streamingFinishOnce from './streaming/finish-once.js';
import streamingFraming from './streaming/framing.js';
import streamingNoStreamField from './streaming/no-stream-field.js';
import streamingRoleFirst from './streaming/role-first.js';
import streamingUnrequestedUsage from './streaming/unrequested-usage.js';
import streamingUsage from './streaming/usage.js';
import streamingToolCalls from './streaming/tool-calls.js';
import streamingIntegrity from './streaming/integrity.js';
import reasoningField from './reasoning/field.js';
import reasoningStream from './reasoning/stream.js';
import reasoningUsage from './reasoning/usage.js';
import reasoningEffort from './reasoning/effort.js';
import reasoningEcho from './reasoning/echo.js';
import usageTokenizer from './usage/tokenizer.js';
import usagePromptOverhead from './usage/prompt-overhead.js';
import usageCompletion from './usage/completion.js';
import usageCache from './usage/cache.js';
import identityFingerprint from './identity/fingerprint.js';
import identityMixedBackends from './identity/mixed-backends.js';
import billingFailedCall from './billing/failed-call.js';
import billingStream from './billing/stream.js';
import billingUsage from './billing/usage.js';

/**
 * Every probe, in catalogue order (the order of the README's probe table). Listed explicitly so the bundle
 * carries them; a test checks that every probe file under suites/ is listed here.
 */
export const PROBES: readonly ProbeDefinition[] = [
  modelsList,
  authMissingKey,
  authBadKey,
  authNoBearer,
  errorsUnknownModel,
  errorsMalformedJson,
  errorsMissingMessages,
  errorsWrongType,
  errorsInvalidRole,
  errorsOutOfRange,
  chatBasic,
  chatSchema,
  chatFinishReason,
  chatUsage,
  chatModelEcho,
  chatErrorIn2xx,
  streamingBasic,
  streamingContentType,
  streamingFraming,
  streamingDone,
  streamingChunkSchema,
  streamingRoleFirst,
  streamingFinishOnce,
  streamingUsage,
  streamingUnrequestedUsage,
  streamingNoStreamField,
  streamingErrorInBand,
  streamingBuffered,
  streamingToolCalls,
  streamingIntegrity,
  parametersMaxTokens,
  parametersMaxCompletionTokens,
  parametersTemperature,
  parametersTopP,
  parametersSeed,
  parametersStop,
  parametersStopMany,
  parametersN,
  parametersPresencePenalty,
  parametersFrequencyPenalty,
  parametersLogprobs,
  parametersLogitBias,
  parametersJsonObject,
  parametersJsonSchema,
  parametersTools,
  parametersToolChoiceRequired,
  parametersToolChoiceNone,
  parametersToolChoiceNamed,
  parametersParallelToolCalls,
  parametersUser,
  parametersMetadata,
  parametersUnknownField,
  parametersReasoningEffort,
  parametersStreamOptionsWithoutStream,
  rolesSystem,
  rolesDeveloper,
  rolesSystemParts,
  rolesHistory,
  rolesContentParts,
  rolesImage,
  rolesToolResult,
  rolesName,
  rolesConsecutiveUser,
  rolesAssistantPrefill,
  rolesEmptyContent,
  reasoningField,
  reasoningStream,
  reasoningUsage,
  reasoningEffort,
  reasoningEcho,
  usageTokenizer,
  usagePromptOverhead,
  usageCompletion,
  usageCache,
  identityFingerprint,
  identityMixedBackends,
  billingFailedCall,
  billingStream,
  billingUsage,
];
