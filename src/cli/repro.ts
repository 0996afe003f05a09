import { dirname, join } from 'node:path';
import { oneLine } from '../text.js';
import { CannotTestError } from '../errors.js';
import { eachHarEntry, HAR_FILE } from '../report/har.js';
import { readCell, reportFile } from '../report/read.js';
import { renderRepro, type HarRequestView } from '../report/repro.js';
import { EXIT } from '../results/exit.js';
import { err, out, cannotTest } from './output.js';

/** chatprobe repro REPORT MODEL PROBE: the curl commands of a cell's evidence, from exchanges.har. */
export async function reproCommand(path: string, model: string, probe: string): Promise<number> {
  try {
    // One cell read out of the report a value at a time (report/read.ts readCell): a report of 100,000
    // models parsed whole is more than a small heap holds.
    const { cell, probes, models } = await readCell(path, model, probe);
    if (!cell) {
      throw new CannotTestError(`no cell ${oneLine(model)} × ${oneLine(probe)} in the report`, `models: ${models.map(oneLine).join(', ')}; probes as listed by \`chatprobe probes\``);
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
    out(renderRepro({ probes }, cell, entries));
    return EXIT.ok;
  } catch (e) {
    return cannotTest(e);
  }
}
