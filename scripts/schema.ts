// Writes schema/report.schema.json from the zod model (npm run schema); a test checks the committed file is current.
import { mkdirSync, writeFileSync } from 'node:fs';
import { reportJsonSchema } from '../src/report/schema.js';

mkdirSync('schema', { recursive: true });
writeFileSync('schema/report.schema.json', `${JSON.stringify(reportJsonSchema(), null, 2)}\n`);
console.log('wrote schema/report.schema.json');
