// Writes the files derived from the zod models (npm run schema); tests check the committed ones are current:
// schema/report.schema.json, schema/profile.schema.json, schema/config.schema.json (the config file's, for
// editors), schema/probe.schema.json (a declarative probe file's, for editors), schema/prices.schema.json (the price list's, --prices), and src/cli/audit-flags.json (the audit's flag declarations, so that --help, --version and the
// reading of the command line load no zod).
import { mkdirSync, writeFileSync } from 'node:fs';
import { auditFlagTable } from '../src/cli/flags.js';
import { AuditFlags } from '../src/config/options.js';
import { profileJsonSchema } from '../src/reference/profile.js';
import { reportJsonSchema } from '../src/report/schema.js';
import { configJsonSchema } from '../src/config/schema.js';
import { probeFileJsonSchema } from '../src/config/probe-file.js';
import { pricesJsonSchema } from '../src/billing/prices.js';

mkdirSync('schema', { recursive: true });
writeFileSync('schema/report.schema.json', `${JSON.stringify(reportJsonSchema(), null, 2)}\n`);
console.log('wrote schema/report.schema.json');
writeFileSync('schema/profile.schema.json', `${JSON.stringify(profileJsonSchema(), null, 2)}\n`);
console.log('wrote schema/profile.schema.json');
writeFileSync('schema/config.schema.json', `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
console.log('wrote schema/config.schema.json');
writeFileSync('schema/probe.schema.json', `${JSON.stringify(probeFileJsonSchema(), null, 2)}\n`);
console.log('wrote schema/probe.schema.json');
writeFileSync('schema/prices.schema.json', `${JSON.stringify(pricesJsonSchema(), null, 2)}\n`);
console.log('wrote schema/prices.schema.json');
writeFileSync('src/cli/audit-flags.json', `${JSON.stringify(auditFlagTable(AuditFlags), null, 2)}\n`);
console.log('wrote src/cli/audit-flags.json');
