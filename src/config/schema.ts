import { z } from 'zod';
import { VERSION } from '../version.js';
import { ConfigFile } from './options.js';

/** Where the config file's schema is published with the package (it ships schema/config.schema.json). */
export const CONFIG_SCHEMA_URL = `https://unpkg.com/chatprobe@${VERSION}/schema/config.schema.json`;

/**
 * The JSON Schema of chatprobe.config.json, for editors (`"$schema"`): generated from the zod schema the
 * file is validated with, so the two cannot drift (test/unit/config-schema.test.ts). `io: 'input'`: what a
 * user may write (a list option as one string too), not what it becomes.
 */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ConfigFile, { io: 'input' }) as Record<string, unknown>;
  return { ...schema, $id: CONFIG_SCHEMA_URL, title: 'chatprobe config file (chatprobe.config.json)' };
}
