import type { Report } from '../model.js';
import { REPORT_SCHEMA_URL } from '../schema.js';

/** report.json: the judged report, naming its JSON Schema first. */
export function renderJson(report: Report): string {
  return `${JSON.stringify({ $schema: REPORT_SCHEMA_URL, ...report }, null, 2)}\n`;
}
