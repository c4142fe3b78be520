// API handlers for experiment files.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError, type OpenedExperiment } from '../../common/api.js';
import type { Checked } from '../../common/experiment/validate.js';
import { parseExperimentText, readExperimentFile, recentFiles } from '../files.js';
import type { BackendContext, Handlers } from '../backend.js';
import { homedir } from 'node:os';
import { keychainState } from '../secrets.js';
import { defaultQuickstartDir } from '../quickstart.js';

/** examples/ ships at the top of the package: found by walking up from this module (src/ or dist/). */
function examplesDir(): string {
  if (process.env.VARLAB_EXAMPLES) return process.env.VARLAB_EXAMPLES;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'examples')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'examples');
}

function opened(path: string | null, r: Checked, where: string): OpenedExperiment {
  if (!r.doc) throw new ApiError('invalid-file', `${where}:\n${r.problems.join('\n')}`);
  return { path, doc: r.doc, notices: r.notices, revision: null };
}

export function experimentHandlers(ctx: BackendContext): Handlers {
  return {
    'app.info': async () => ({ version: '0.1.0', transport: ctx.options.transport, platform: process.platform, home: homedir(), documents: defaultQuickstartDir(), keychain: keychainState() }),
    'experiment.example': async ({ name }) => {
      if (!/^[a-z0-9-]+$/.test(name)) throw new ApiError('invalid-argument', `no example called ${JSON.stringify(name)}`);
      const file = join(examplesDir(), `${name}.varlab.json`);
      const r = await readExperimentFile(file);
      if (r.problems[0]?.includes('no such file')) throw new ApiError('not-found', `no example called ${JSON.stringify(name)}`);
      return opened(null, r, file);
    },
    // The document service reads the file with its revision and watches it from now on.
    'experiment.open': async ({ path }) => {
      return ctx.documents.open(path);
    },
    'experiment.close': async ({ path }) => {
      if (typeof path === 'string' && path) ctx.documents.close(path);
      return null;
    },
    'experiment.parse': async ({ name, text }) => opened(null, parseExperimentText(text), name),
    'experiment.save': async ({ path, doc, baseRevision, choice }) => {
      return ctx.documents.save({ path, doc, baseRevision, choice });
    },
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
