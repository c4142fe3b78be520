// The journal beside a file follows its results when a design edit keeps them (issue 25): a journal
// that names a query or a cell by its old name would rebuild, resume or be read as another design.
//
//   - names only (a query renamed, factors reordered) and the same plan length: each journal is
//     rewritten with the new names, atomically (a temporary file renamed over it), every record kept;
//   - restarts removed, or cells added: the journal no longer tells the file's story, so it is
//     archived beside the file (kept, as it was written), and the file is the record from then on.
import { existsSync, readFileSync } from 'node:fs';
import type { Carried } from '../../common/experiment/carry.js';
import type { Design } from '../../common/experiment/types.js';
import { buildPlan } from '../../common/plan.js';
import type { JournalRecord } from '../../common/records.js';
import { archiveJournal, designDigest, planHash, runJournals } from '../engine/journal.js';
import { writeAtomic } from '../files.js';

/** The design a journal's header holds after the edit: the header's own run (target, profile, seed) with the new names. */
function relabelledDesign(header: Design, after: Design): Design {
  return { ...header, factors: after.factors, excludedCells: after.excludedCells, restartsPerCell: after.restartsPerCell, workload: { ...header.workload, queries: after.workload.queries } };
}

function relabel(r: JournalRecord, c: Carried, after: Design): JournalRecord {
  switch (r.t) {
    case 'header': {
      const design = relabelledDesign(r.design, after);
      return { ...r, design, planHash: planHash(design), designDigest: designDigest(design) };
    }
    case 'restart-started':
    case 'restart-finished':
    case 'restart-discarded':
      return { ...r, cell: c.cells.get(r.cell) ?? r.cell };
    case 'execution':
      return { ...r, query: c.queries.get(r.query) ?? r.query };
    default:
      return r;
  }
}

/** Make each journal of `path` agree with the results carried to `after`; says what it did, or null when there was no journal. */
export async function carryJournals(path: string, before: Design, after: Design, c: Carried): Promise<string | null> {
  const journals = runJournals(path, before)
    .map((j) => j.path)
    .filter((p) => existsSync(p));
  if (!journals.length) return null;
  const rewritable = !c.removed.restarts.length && !c.missing.length;
  const rewritten: string[] = [];
  const archived: string[] = [];
  for (const p of journals) {
    const lines = readFileSync(p, 'utf8').split('\n');
    const records = lines.map((line) => {
      try {
        return line.trim() ? (JSON.parse(line) as JournalRecord) : null;
      } catch {
        return null; // a torn line stays as it is
      }
    });
    const header = records.find((r): r is Extract<JournalRecord, { t: 'header' }> => r?.t === 'header');
    const samePlan = header && buildPlan(relabelledDesign(header.design, after)).length === header.planned;
    if (!rewritable || !samePlan) {
      archived.push(archiveJournal(p));
      continue;
    }
    const text = lines.map((line, i) => (records[i] ? JSON.stringify(relabel(records[i]!, c, after)) : line)).join('\n');
    await writeAtomic(p, text);
    rewritten.push(p);
  }
  const parts = [
    rewritten.length ? `the journal${rewritten.length > 1 ? 's' : ''} ${rewritten.join(', ')} now use${rewritten.length > 1 ? '' : 's'} the new names` : '',
    archived.length ? `the journal${archived.length > 1 ? 's' : ''} of the old design ${archived.length > 1 ? 'are' : 'is'} kept in ${archived.join(', ')}` : '',
  ].filter(Boolean);
  return parts.join('; ');
}
