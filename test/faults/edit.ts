// A second process saving the experiment file while a run saves its results into it (the fault suite's
// two-process-save): the app's way, through the document service: open (its revision), change the
// description, save on that revision. A save refused as stale (the run wrote meanwhile) is done again
// on the file as it is now, as a user reloading would. One JSON line: {saved, tries, message}.
//   node --import tsx test/faults/edit.ts FILE DESCRIPTION
import { ApiError } from '../../src/common/api.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { runningOnFile } from '../../src/node/runs/locks.js';

const [file, description] = process.argv.slice(2);
// As the app's: a file a run of it writes into is not rebuilt from its journal on open.
const docs = new DocumentService({ busy: async (abs) => ((await runningOnFile(abs)) ? 'a run of it is going on' : null) });
let tries = 0;
let message = '';
let saved = false;
try {
  for (; tries < 30 && !saved; tries++) {
    const opened = await docs.open(file);
    try {
      await docs.save({ path: file, doc: { ...opened.doc, description }, baseRevision: opened.revision });
      saved = true;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'conflict')) throw e;
      message = e.message;
    }
  }
} catch (e) {
  message = (e as Error).message;
} finally {
  docs.dispose();
}
process.stdout.write(JSON.stringify({ saved, tries, message }) + '\n');
process.exitCode = saved ? 0 : 1;
