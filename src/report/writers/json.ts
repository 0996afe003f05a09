import type { Report } from '../../results/model.js';
import { REPORT_SCHEMA_URL } from '../schema.js';

/** Entries of `models` and `results` stringified per piece: a piece is bounded, whatever the run's size. */
const PIECE_ITEMS = 500;

/** report.json: the judged report, naming its JSON Schema first. */
export function renderJson(report: Report): string {
  return [...jsonPieces(report)].join('');
}

/**
 * report.json in pieces, which joined are exactly `JSON.stringify({ $schema, ...report }, null, 2)`: the
 * models and results arrays (100,000 models are ~70 MB of JSON) are stringified a few hundred entries at a
 * time, so the file is never one string in memory, and each piece can be written (and redacted) alone.
 */
export function* jsonPieces(report: Report): Generator<string> {
  const whole: Record<string, unknown> = { $schema: REPORT_SCHEMA_URL, ...report };
  // JSON.stringify leaves out keys whose value is undefined.
  const keys = Object.keys(whole).filter((k) => whole[k] !== undefined);
  yield '{\n';
  for (const [i, key] of keys.entries()) {
    const value = whole[key];
    const end = i < keys.length - 1 ? ',\n' : '\n';
    if (Array.isArray(value) && value.length > PIECE_ITEMS) {
      yield `  ${JSON.stringify(key)}: [\n`;
      for (let j = 0; j < value.length; j += PIECE_ITEMS) {
        const items = value.slice(j, j + PIECE_ITEMS).map((item) => `    ${indent(JSON.stringify(item ?? null, null, 2), '    ')}`);
        yield `${items.join(',\n')}${j + PIECE_ITEMS < value.length ? ',\n' : '\n'}`;
      }
      yield `  ]${end}`;
    } else {
      yield `  ${JSON.stringify(key)}: ${indent(JSON.stringify(value, null, 2), '  ')}${end}`;
    }
  }
  yield '}\n';
}

/** A pretty-printed value's lines after the first, indented: JSON strings hold no raw line break. */
const indent = (json: string, by: string) => json.replace(/\n/g, `\n${by}`);
