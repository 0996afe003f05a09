import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ROOT } from './cli.js';
import { Report } from '../../src/results/model.js';

const schema = JSON.parse(readFileSync(`${ROOT}schema/report.schema.json`, 'utf8')) as Record<string, unknown>;
const validate = new Ajv2020({ allErrors: false, strict: false }).compile(schema);

/** The problems of a report.json against the shipped JSON Schema, or [] when it conforms. */
export function schemaProblems(report: unknown): string[] {
  return validate(report) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/** A report.json's text, checked against the shipped JSON Schema and then the zod model: every report the suite reads. */
export function parseReport(text: string): Report {
  const raw: unknown = JSON.parse(text);
  const problems = schemaProblems(raw);
  if (problems.length > 0) throw new Error(`report.json does not conform to schema/report.schema.json: ${problems.slice(0, 5).join('; ')}`);
  return Report.parse(raw);
}
