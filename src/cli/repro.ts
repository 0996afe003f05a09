import { dirname, join } from 'node:path';
import { Boundary } from '../boundary/boundary.js';
import { oneLine } from '../text.js';
import { CannotTestError } from '../errors.js';
import { eachHarEntry, HAR_FILE } from '../report/har.js';
import { readReportAs, reportFile, ReproReport } from '../report/read.js';
import { findCell, renderRepro, type HarRequestView } from '../report/repro.js';
import { EXIT } from '../results/exit.js';
import { err, out, cannotTest } from './output.js';

/** chatprobe repro REPORT MODEL PROBE: the curl commands of a cell's evidence, from exchanges.har. */
export async function reproCommand(path: string, model: string, probe: string): Promise<number> {
  try {
    // Only what repro shows is cleaned (Boundary), not a copy of the whole report: one of 100,000 models
    // is 70 MB of JSON, and its copies are more than a small heap holds.
    const read = await readReportAs(path, ReproReport);
    const boundary = new Boundary();
    boundary.nameModels(read.shard?.allModels ?? read.models.map((m) => m.id));
    const report = { ...read, probes: boundary.clean(read.probes) };
    const found = findCell(report, model, probe, (id) => boundary.modelId(id));
    const cell = found && boundary.result(found);
    if (!cell) {
      const models = [...new Set(report.results.map((r) => boundary.modelId(r.model)))].map(oneLine).join(', ');
      throw new CannotTestError(`no cell ${oneLine(model)} × ${oneLine(probe)} in the report`, `models: ${models}; probes as listed by \`chatprobe probes\``);
    }
    const harPath = join(dirname(await reportFile(path)), HAR_FILE);
    // Read a line (an entry) at a time, keeping only the cell's evidence: the record of a long run is
    // gigabytes, past the longest string V8 makes ("Invalid string length" when read whole).
    const wanted = new Set(cell.evidence);
    const entries = new Map<string, HarRequestView>();
    try {
      await eachHarEntry(harPath, (e) => {
        if (wanted.has(e._callId)) entries.set(e._callId, e);
      });
    } catch (e) {
      throw new CannotTestError(`cannot read ${harPath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'repro reads the exchanges.har written beside report.json (chatprobe 0.1 and later)');
    }
    out(renderRepro(report, cell, entries));
    return EXIT.ok;
  } catch (e) {
    return cannotTest(e);
  }
}
