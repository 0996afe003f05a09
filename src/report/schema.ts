import { z } from 'zod';
import { VERSION } from '../version.js';
import { Report } from '../results/model.js';

/** Where report.json's schema is published with the package (it ships schema/report.schema.json). */
export const REPORT_SCHEMA_URL = `https://unpkg.com/chatprobe@${VERSION}/schema/report.schema.json`;

/** The JSON Schema of report.json, generated from the zod model so the two cannot drift (test/unit/schema.test.ts). */
export function reportJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Report, { io: 'output' }) as Record<string, unknown>;
  return { ...schema, $id: REPORT_SCHEMA_URL, title: 'chatprobe report.json' };
}
