// API handlers for export and teammates' files: the UI's export buttons write through the same code
// as `varlab export`, and trust.check/grant answer "what would this file run here?".
import { extname, isAbsolute, resolve } from 'node:path';
import { ApiError } from '../../common/api.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';
import { buildFigures } from '../../common/figures/index.js';
import { checkScale, contextFor, writeCsvs, writePlots } from '../export/files.js';
import { readExperimentFile, writeAtomic } from '../files.js';
import { prepareRun } from '../runs/prepare.js';
import { checkTrust, grantTrust } from '../trust.js';
import type { BackendContext, Handlers } from '../backend.js';

/** What the UI may write through export.writeFile: images and text exports, nothing executable. */
const WRITABLE = new Set(['.png', '.svg', '.csv', '.md', '.txt', '.json']);

async function docOf(args: { path?: string; doc?: ExperimentDoc }): Promise<ExperimentDoc> {
  if (args.doc) return args.doc;
  if (!args.path) throw new ApiError('invalid-argument', 'give the path of an experiment file or the document itself');
  const r = await readExperimentFile(resolve(args.path));
  if (!r.doc) throw new ApiError('invalid-file', `${args.path}:\n${r.problems.join('\n')}`);
  return r.doc;
}

/**
 * For consent, a file is what a run of it would run: prepared the way run.start prepares it (a
 * journal's design on resume, the server profile resolved for the target), so agreeing here is
 * agreeing to what run.start then checks. A file that cannot run as it is (finished, no profile)
 * is judged as it stands.
 */
async function asRunWouldRun(args: { path?: string; doc?: ExperimentDoc; target?: string; resume?: boolean; fresh?: boolean }): Promise<ExperimentDoc> {
  if (!args.doc && args.path) {
    const prepared = await prepareRun({ file: resolve(args.path), target: args.target, resume: args.resume === true, fresh: args.fresh === true }).catch(() => null);
    if (prepared) return prepared.doc;
  }
  return docOf(args);
}

function absoluteDir(dir: string | undefined): string {
  if (!dir || !isAbsolute(dir)) throw new ApiError('invalid-argument', `the export folder must be an absolute path, got ${JSON.stringify(dir ?? '')}`);
  return dir;
}

export function exportHandlers(_ctx: BackendContext): Handlers {
  return {
    'export.writeFile': async ({ path, base64 }) => {
      if (typeof path !== 'string' || !isAbsolute(path)) throw new ApiError('invalid-argument', `the file must be an absolute path, got ${JSON.stringify(path)}`);
      if (!WRITABLE.has(extname(path).toLowerCase())) throw new ApiError('invalid-argument', `refused to write ${path}: exports are ${[...WRITABLE].join(', ')} files`);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw new ApiError('invalid-argument', 'the content must be base64');
      try {
        await writeAtomic(path, Buffer.from(base64, 'base64'));
      } catch (e) {
        throw new ApiError('io', `cannot write ${path}: ${(e as Error).message}`);
      }
      return { path };
    },
    'export.plots': async (args) => {
      const dir = absoluteDir(args.dir);
      const format = args.format ?? 'png';
      const ctx = contextFor(await docOf(args), { warmup: args.warmup, baseline: args.baseline, alpha: args.alpha, adjustment: args.adjustment, acrossRuns: args.acrossRuns });
      const files = await writePlots(buildFigures(ctx, { image: true }), [{ format, dir }], checkScale(args.scale ?? 2));
      return { files: files.map((f) => f.path) };
    },
    'export.csv': async (args) => {
      const dir = absoluteDir(args.dir);
      const ctx = contextFor(await docOf(args), { warmup: args.warmup, baseline: args.baseline, alpha: args.alpha, adjustment: args.adjustment, acrossRuns: args.acrossRuns });
      return { files: (await writeCsvs(ctx, dir)).map((f) => f.path) };
    },
    'trust.check': async (args) => checkTrust(await asRunWouldRun(args), args.target),
    'trust.grant': async (args) => {
      // Consent is to the list the user saw: its digest, compared with the list as it is now.
      if (!/^[0-9a-f]{64}$/.test(args.digest)) throw new ApiError('invalid-argument', 'trust.grant: digest must be the digest of the list shown (from trust.check or a needs-consent refusal)');
      return grantTrust(await asRunWouldRun(args), args.target, args.digest);
    },
  };
}
