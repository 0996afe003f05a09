import type { ProbeDefinition } from '../src/engine/probe.js';
import chatBasic from './chat/basic.js';
import parametersMaxTokens from './parameters/max-tokens.js';
import streamingBasic from './streaming/basic.js';

/**
 * Every probe, in catalogue order. Listed explicitly so the bundle carries them (a test checks that every
 * file under suites/ is listed here).
 */
export const PROBES: readonly ProbeDefinition[] = [chatBasic, streamingBasic, parametersMaxTokens];
