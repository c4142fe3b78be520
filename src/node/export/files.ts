// `varlab export` and the UI's export buttons write through here: CSVs, the Markdown report, and one
// image per figure. Every file goes to disk whole (written beside, then renamed), so an interrupted
// export never leaves half a CSV that a script would read as complete.
import { dirname, relative, resolve, sep } from 'node:path';
import { ApiError } from '../../common/api.js';
import { writeAtomic } from '../files.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';
import { CSV_FILES, exportContext, ExportError, markdownReport, type ExportContext, type ExportOptions } from '../../common/export/index.js';
import { buildFigures, type FigureSpec } from '../../common/figures/index.js';
import { openRenderer, type ImageFormat, type Renderer } from './render.js';

export interface ExportRequest extends ExportOptions {
  csvDir?: string;
  pngDir?: string;
  svgDir?: string;
  markdown?: string;
  /** PNG scale: 1, 2 or 3. Default 2. */
  scale?: number;
}

export interface WrittenFile {
  path: string;
  kind: 'csv' | 'png' | 'svg' | 'markdown';
  /** For images: the figure's title. */
  title?: string;
}

/** Written beside and renamed (writeAtomic); a CSV streams out in pieces. */
async function writeWhole(path: string, content: string | Uint8Array | Iterable<string>): Promise<void> {
  try {
    await writeAtomic(path, content);
  } catch (e) {
    throw new ApiError('io', `cannot write ${path}: ${(e as Error).message}`);
  }
}

export function contextFor(doc: ExperimentDoc, opts: ExportOptions): ExportContext {
  if (!doc.results?.restarts.length) throw new ApiError('invalid-argument', `"${doc.name}" has no results yet: run it first, then export`);
  try {
    return exportContext(doc, opts);
  } catch (e) {
    if (e instanceof ExportError) throw new ApiError('invalid-argument', e.message);
    throw e;
  }
}

export async function writeCsvs(ctx: ExportContext, dir: string): Promise<WrittenFile[]> {
  const out: WrittenFile[] = [];
  for (const [name, make] of Object.entries(CSV_FILES)) {
    const pieces = make(ctx);
    if (!pieces) continue;
    const path = resolve(dir, name);
    await writeWhole(path, pieces);
    out.push({ path, kind: 'csv' });
  }
  return out;
}

export function checkScale(scale: number): number {
  if (![1, 2, 3].includes(scale)) throw new ApiError('invalid-argument', `scale must be 1, 2 or 3, got ${scale}`);
  return scale;
}

/**
 * Render every figure in the formats asked for, in one Chromium session (started by the caller
 * when it wants it started early): each figure drawn once for all formats, two at a time, written in order.
 */
export async function writePlots(
  figures: FigureSpec[],
  targets: { format: ImageFormat; dir: string }[],
  scale: number,
  progress?: (file: string) => void,
  started?: Promise<Renderer>,
): Promise<WrittenFile[]> {
  if (!targets.length || !figures.length) {
    await started?.then((r) => r.close());
    return [];
  }
  const renderer = await (started ?? openRenderer());
  const out: WrittenFile[] = [];
  const want = { png: targets.some((t) => t.format === 'png') ? scale : undefined, svg: targets.some((t) => t.format === 'svg') };
  try {
    const images = figures.map((f) => renderer.render(f, want));
    // Handled here, so a failure while an earlier figure is being written is not "unhandled"; awaited below.
    for (const p of images) p.catch(() => {});
    for (let i = 0; i < figures.length; i++) {
      const f = figures[i];
      const drawn = await images[i];
      for (const { format, dir } of targets) {
        const path = resolve(dir, `${f.file}.${format}`);
        await writeWhole(path, drawn[format]!);
        out.push({ path, kind: format, title: f.title });
        progress?.(path);
      }
    }
  } finally {
    await renderer.close();
  }
  return out;
}

/** A path as a Markdown link from the report's folder: relative, forward slashes. */
function linkFrom(markdownFile: string, target: string): string {
  return relative(dirname(markdownFile), target).split(sep).join('/');
}

/** Everything `varlab export` does: the CSVs, the images, then the report that links them. */
export async function exportExperiment(doc: ExperimentDoc, req: ExportRequest, progress?: (file: string) => void): Promise<WrittenFile[]> {
  const scale = checkScale(req.scale ?? 2);
  const targets: { format: ImageFormat; dir: string }[] = [];
  if (req.pngDir) targets.push({ format: 'png', dir: req.pngDir });
  if (req.svgDir) targets.push({ format: 'svg', dir: req.svgDir });
  // Chromium starts while the analysis runs and the CSVs are written.
  const renderer = targets.length ? openRenderer() : undefined;
  renderer?.catch(() => {});
  let ctx: ExportContext;
  const written: WrittenFile[] = [];
  try {
    ctx = contextFor(doc, req);
    if (req.csvDir) {
      for (const f of await writeCsvs(ctx, req.csvDir)) {
        written.push(f);
        progress?.(f.path);
      }
    }
  } catch (e) {
    await renderer?.then((r) => r.close()).catch(() => {});
    throw e;
  }
  const images = await writePlots(buildFigures(ctx, { image: true }), targets, scale, progress, renderer);
  written.push(...images);
  if (req.markdown) {
    const path = resolve(req.markdown);
    const linked = images.filter((i) => i.kind === (req.pngDir ? 'png' : 'svg'));
    await writeWhole(path, markdownReport(ctx, { images: linked.map((i) => ({ title: i.title ?? '', path: linkFrom(path, i.path) })) }));
    written.push({ path, kind: 'markdown' });
    progress?.(path);
  }
  return written;
}
