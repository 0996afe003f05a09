import { readFileSync } from 'node:fs';
import { notJson, schemaProblem, unreadable } from '../words.js';
import defaultProfile from '../../fixtures/profiles/default.json' with { type: 'json' };
import brokenGateway from '../../fixtures/profiles/broken-gateway.json' with { type: 'json' };
import echoKey from '../../fixtures/profiles/echo-key.json' with { type: 'json' };
import fastapi from '../../fixtures/profiles/fastapi.json' with { type: 'json' };
import gatewayCauses from '../../fixtures/profiles/gateway-causes.json' with { type: 'json' };
import imperfect from '../../fixtures/profiles/imperfect.json' with { type: 'json' };
import llamaCpp from '../../fixtures/profiles/llama-cpp.json' with { type: 'json' };
import newApi from '../../fixtures/profiles/new-api.json' with { type: 'json' };
import picky from '../../fixtures/profiles/picky.json' with { type: 'json' };
import roles from '../../fixtures/profiles/roles.json' with { type: 'json' };
import sloppyStream from '../../fixtures/profiles/sloppy-stream.json' with { type: 'json' };
import stalling from '../../fixtures/profiles/stalling.json' with { type: 'json' };
import strictParams from '../../fixtures/profiles/strict-params.json' with { type: 'json' };
import streamTools from '../../fixtures/profiles/stream-tools.json' with { type: 'json' };
import reasoning from '../../fixtures/profiles/reasoning.json' with { type: 'json' };
import billing from '../../fixtures/profiles/billing.json' with { type: 'json' };
import billingLate from '../../fixtures/profiles/billing-late.json' with { type: 'json' };
import wrongBaseUrl from '../../fixtures/profiles/wrong-base-url.json' with { type: 'json' };
import rebuildingGateway from '../../fixtures/profiles/rebuilding-gateway.json' with { type: 'json' };
import hugeErrors from '../../fixtures/profiles/huge-errors.json' with { type: 'json' };
import usage from '../../fixtures/profiles/usage.json' with { type: 'json' };
import identity from '../../fixtures/profiles/identity.json' with { type: 'json' };
import { Profile } from './profile.js';
import { PROFILE_NAMES } from './profile-names.js';

/** The bundled profiles, imported so they travel inside the npx bundle. */
const BUNDLED: Record<string, unknown> = {
  default: defaultProfile,
  'broken-gateway': brokenGateway,
  'echo-key': echoKey,
  fastapi: fastapi,
  'gateway-causes': gatewayCauses,
  imperfect: imperfect,
  'llama-cpp': llamaCpp,
  'new-api': newApi,
  picky: picky,
  roles: roles,
  'sloppy-stream': sloppyStream,
  stalling: stalling,
  'strict-params': strictParams,
  'stream-tools': streamTools,
  reasoning: reasoning,
  billing: billing,
  'billing-late': billingLate,
  'wrong-base-url': wrongBaseUrl,
  'rebuilding-gateway': rebuildingGateway,
  'huge-errors': hugeErrors,
  usage: usage,
  identity: identity,
};

export { PROFILE_NAMES };
if (Object.keys(BUNDLED).join() !== PROFILE_NAMES.join()) throw new Error('reference/profile-names.ts does not list the bundled profiles');

/** A bundled profile by name, or a profile JSON file by path. */
export function loadProfile(nameOrPath: string): Profile {
  const raw = Object.hasOwn(BUNDLED, nameOrPath) ? BUNDLED[nameOrPath] : readProfileFile(nameOrPath);
  const parsed = Profile.safeParse(raw);
  if (!parsed.success) throw new Error(`profile "${nameOrPath}" is invalid at ${schemaProblem(parsed.error, raw)}`);
  return parsed.data;
}

function readProfileFile(path: string): unknown {
  if (!path.endsWith('.json')) {
    throw new Error(`unknown profile "${path}": bundled profiles are ${PROFILE_NAMES.join(', ')}; or pass a path to a .json profile`);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read profile ${path}: ${unreadable(err)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`cannot read profile ${path}: not JSON${notJson(text)}`);
  }
}
