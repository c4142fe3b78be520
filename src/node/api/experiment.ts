// API handlers for experiment files.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError, type OpenedExperiment } from '../../common/api.js';
import type { Checked } from '../../common/experiment/validate.js';
import { parseExperimentText, readExperimentFile, recentFiles, rememberRecent, saveExperimentFile } from '../files.js';
import type { BackendContext, Handlers } from '../backend.js';
import { unfinishedRun } from '../engine/journal.js';
import { homedir } from 'node:os';
import { keychainState } from '../secrets.js';

/** examples/ ships at the top of the package: found by walking up from this module (src/ or dist/). */
function examplesDir(): string {
  if (process.env.VARLAB_EXAMPLES) return process.env.VARLAB_EXAMPLES;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'examples')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'examples');
}

function opened(path: string | null, r: Checked, where: string): OpenedExperiment {
  if (!r.doc) throw new ApiError('invalid-file', `${where}:\n${r.problems.join('\n')}`);
  return { path, doc: r.doc, notices: r.notices };
}

export function experimentHandlers(ctx: BackendContext): Handlers {
  return {
    'app.info': async () => ({ version: '0.1.0', transport: ctx.options.transport, platform: process.platform, home: homedir(), keychain: keychainState() }),
    'experiment.example': async ({ name }) => {
      if (!/^[a-z0-9-]+$/.test(name)) throw new ApiError('invalid-argument', `no example called ${JSON.stringify(name)}`);
      const file = join(examplesDir(), `${name}.varlab.json`);
      const r = await readExperimentFile(file);
      if (r.problems[0]?.includes('no such file')) throw new ApiError('not-found', `no example called ${JSON.stringify(name)}`);
      return opened(null, r, file);
    },
    'experiment.open': async ({ path }) => {
      const abs = resolve(path);
      const r = await readExperimentFile(abs);
      const result = opened(abs, r, abs);
      // A journal beside the file with restarts still to run: the UI offers to resume (run engine, issue 4).
      const unfinished = unfinishedRun(abs);
      if (unfinished) result.unfinishedRun = unfinished;
      await rememberRecent(abs);
      return result;
    },
    'experiment.parse': async ({ name, text }) => opened(null, parseExperimentText(text), name),
    'experiment.save': async ({ path, doc }) => ({ path: await saveExperimentFile(path, doc), savedAt: Date.now() }),
    'experiment.recent': async () => recentFiles(),
    'experiment.readSql': async ({ path }) => {
      try {
        return { name: basename(path).replace(/\.sql$/i, ''), sql: await readFile(resolve(path), 'utf8') };
      } catch (e) {
        throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`);
      }
    },
  };
}
