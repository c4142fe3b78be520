// The document service: the experiment file on disk is the truth, and this is its one owner in a
// process. It reads a file with its revision (the hash of its bytes), watches every file a client
// has open and tells every client when it changed (a run saving results, a Save, another program),
// and writes only what keeps every measurement on disk unless the user chose otherwise:
//
//   - Save is based on a revision: if the file changed since, it is refused (`conflict`) unless the
//     user chose to overwrite it;
//   - a file with results keeps them when only its labels or notes change (name, description: see
//     common/experiment/changes.ts), and when the edit renames a query, reorders factors or adds
//     cells (common/experiment/carry.ts: the results and the journal take the new names);
//   - an edit that removes a level, a cell or a query is refused (`results-at-stake`, naming how many
//     restarts) until the user chooses to move exactly those to the `…results-….varlab.json` copy
//     (`keep-results-copy`); the rest stay;
//   - any other design edit (the workload, how restarts are measured) is refused the same way until
//     the user chooses: save as a new experiment (the client saves elsewhere), or keep all the old
//     results in the copy;
//   - results written are always the file's, never a client's copy of them;
//   - a design edit while a run writes into the file is refused (`busy`);
//   - a run's saves keep the labels on disk and replace only the results.
// Every write is atomic (a temporary file renamed over the original, removed on failure).
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { ApiError, type DocumentChanged, type OpenedExperiment, type SaveChoice, type SaveResult } from '../../common/api.js';
import { carryResults, grownResults, missingSentence, type Carried } from '../../common/experiment/carry.js';
import { designChanges, measurementsIn, sameDesign } from '../../common/experiment/changes.js';
import type { ExperimentDoc, Results } from '../../common/experiment/types.js';
import { unfinishedRun } from '../engine/journal.js';
import { assertSavable, readExperimentFile, removeStaleTemporaries, rememberRecent, writeExperimentFile, type Revision } from '../files.js';
import { carryJournals } from './journal-carry.js';
import { keepResults, keptResultsNote, resultsCopyPath, unusedPath } from './results-copy.js';
import { rebuildFromJournal } from './rebuild.js';
import { withWriteLock } from './write-lock.js';
import { Turns } from '../../common/turns.js';
import { executionsText } from '../../common/experiment/words.js';

export interface DocumentServiceOptions {
  /** Every change of a watched file, to every client. */
  emit?: (change: DocumentChanged) => void;
  /** Why the file cannot take a design edit now (a run writes into it), or null. */
  busy?: (path: string) => Promise<string | null>;
  /** How long changes on disk settle before they are read (editors write in several steps). */
  settleMs?: number;
}

interface Known {
  revision: Revision | null;
  /** Size and mtime of what this process wrote last: a run's next save need not read the file again if it is unchanged. */
  written?: { size: number; mtimeMs: number; doc: ExperimentDoc };
  timer?: NodeJS.Timeout;
}

/** At most this many files are watched; the least recently opened is let go first. */
const MAX_WATCHED = 64;

export class DocumentService {
  private readonly known = new Map<string, Known>();
  private readonly watched = new Set<string>();
  private readonly dirs = new Map<string, { watcher: FSWatcher; files: Set<string> }>();
  /** One write at a time per file in this process. */
  private readonly turns = new Turns();
  private disposed = false;

  constructor(private readonly opts: DocumentServiceOptions = {}) {}

  /** Open a file for a client: its document, revision, and a journal's unfinished run; watched from now on. */
  async open(path: string): Promise<OpenedExperiment> {
    const abs = resolve(path);
    await removeStaleTemporaries(abs);
    // Not while a run of it is going on here or elsewhere: that run saves the file itself.
    const rebuilt = (await this.opts.busy?.(abs)) ? null : await this.rebuild(abs);
    const r = await readExperimentFile(abs);
    if (!r.doc) throw new ApiError('invalid-file', `${abs}:\n${r.problems.join('\n')}`);
    this.entry(abs).revision = r.revision ?? null;
    this.watch(abs);
    const opened: OpenedExperiment = { path: abs, doc: r.doc, notices: rebuilt ? [...r.notices, rebuilt] : r.notices, revision: r.revision ?? null };
    const unfinished = unfinishedRun(abs, r.doc.design);
    if (unfinished) opened.unfinishedRun = unfinished;
    await rememberRecent(abs);
    return opened;
  }

  /** Make the file whole from its journal when its last save was lost (see rebuildFromJournal); says what it did, or null. */
  rebuild(path: string): Promise<string | null> {
    const abs = resolve(path);
    return this.serial(abs, () => rebuildFromJournal(abs));
  }

  /** The client no longer shows the file. */
  close(path: string): void {
    this.unwatch(resolve(path));
  }

  /** Save a client's document over the file, keeping every measurement on disk unless `choice` says otherwise. */
  async save(args: { path: string; doc: ExperimentDoc; baseRevision?: Revision | null; choice?: SaveChoice }): Promise<SaveResult> {
    const abs = resolve(args.path);
    // The design is checked alone first: results the client still holds may name a query or a level
    // this edit renamed or removed. Whether those results stay is decided below, and asked.
    const { results: _client, ...design } = args.doc;
    assertSavable(design);
    return this.serial(abs, async () => {
      const disk = existsSync(abs) ? await readExperimentFile(abs) : null;
      if (disk && !disk.doc && args.choice !== 'overwrite') {
        throw new ApiError('conflict', `${abs} on disk is not an experiment this varlab can read (${disk.problems[0] ?? 'unreadable'}); saving would replace it`);
      }
      const stale = disk?.revision !== undefined && typeof args.baseRevision === 'string' && disk.revision !== args.baseRevision;
      if (stale && args.choice !== 'overwrite') {
        throw new ApiError('conflict', `${abs} changed on disk since it was loaded (a run saved results, or another program wrote it): reload it, or save over it (its measurements are kept)`);
      }
      const onDisk = disk?.doc ?? null;
      const held = measurementsIn(onDisk);
      // Results come from the file, never from the client: a client's copy may be older (Undo after
      // the results were moved to a copy must not put them back here).
      let doc: ExperimentDoc = onDisk ? { ...design, ...(onDisk.results ? { results: onDisk.results } : {}) } : args.doc;
      let note: string | undefined;
      if (onDisk && held.restarts > 0) {
        if (sameDesign(onDisk, args.doc)) {
          // Labels or notes only: the results (and the design they were measured with) stay as they are on disk.
          doc = { ...onDisk, name: args.doc.name, description: args.doc.description };
        } else {
          const running = await this.opts.busy?.(abs);
          if (running) throw new ApiError('busy', `${abs}: ${running}; only its name and description can be changed until it ends (or save the design as a new experiment)`);
          const carried = unfinishedRun(abs, onDisk.design) ? null : carryResults(onDisk, args.doc.design);
          const keepAs = resultsCopyPath(abs, onDisk.results?.finishedAt ?? onDisk.results?.startedAt ?? Date.now());
          if (carried && !carried.blocking.length) {
            ({ doc, note } = await this.carry(abs, onDisk, design, carried, keepAs, args.choice));
          } else {
            if (args.choice !== 'keep-results-copy') {
              const changes = carried?.blocking.length ? carried.blocking : designChanges(onDisk.design, args.doc.design);
              const why = carried ? '' : ' (its run is unfinished: resume it first to keep them here)';
              throw new ApiError(
                'results-at-stake',
                `${abs} holds ${held.restarts} restarts (${executionsText(held.executions, onDisk.design.workload.kind)}) measured with the design this edit changes (${changes.join('; ')})${why}. ` +
                  `Save it as a new experiment, or keep the old results in ${keepAs} and save the new design here without results.`,
                { resultsAtStake: { path: abs, restarts: held.restarts, executions: held.executions, keepResultsAs: keepAs, changes } },
              );
            }
            note = keptResultsNote(await keepResults(abs, keepAs, onDisk.design));
            doc = design;
          }
        }
      }
      // What is written is checked whole: the results kept are the disk's, with the design they were measured with.
      assertSavable(doc);
      // The client shows the file it saved from now on (Save As of the quickstart, of a dropped or a
      // new document included): watched like an opened one, so a run's results reach it.
      this.watch(abs);
      const revision = await this.write(abs, doc, 'save');
      await rememberRecent(abs);
      return { path: abs, savedAt: Date.now(), revision, doc, ...(note ? { note } : {}) };
    });
  }

  /**
   * A design edit that the file's results survive (see common/experiment/carry.ts): renamed in the
   * results and the journal; what it removes goes to the results copy once the user chose it (the
   * dialog names how many restarts), the rest stays; cells it adds are said, to be run alone.
   */
  private async carry(abs: string, onDisk: ExperimentDoc, design: Omit<ExperimentDoc, 'results'>, carried: Carried, keepAs: string, choice?: SaveChoice): Promise<{ doc: ExperimentDoc; note?: string }> {
    const moved = carried.removed.restarts;
    const said: string[] = [];
    if (moved.length) {
      const staying = carried.kept.restarts.length;
      const changes = designChanges(onDisk.design, design.design);
      const what = `${carried.removedRestarts} restart${carried.removedRestarts === 1 ? '' : 's'}${carried.trimmedRestarts ? ` and the timings of removed queries in ${carried.trimmedRestarts} other${carried.trimmedRestarts === 1 ? '' : 's'}` : ''}`;
      if (choice !== 'keep-results-copy') {
        const executions = measurementsIn({ results: carried.removed }).executions;
        throw new ApiError(
          'results-at-stake',
          `${abs}: this edit removes what ${what} measured (${changes.join('; ')}). They move to ${keepAs}; the other ${staying} restart${staying === 1 ? '' : 's'} stay here.`,
          { resultsAtStake: { path: abs, restarts: carried.removedRestarts, executions, keepResultsAs: keepAs, changes, moving: { restarts: carried.removedRestarts, trimmed: carried.trimmedRestarts, staying } } },
        );
      }
      // The copy is the old design with exactly what leaves the file: it reads as the experiment it was.
      const copy = unusedPath(keepAs);
      await this.writeCopy(copy, { ...onDisk, results: carried.removed });
      said.push(`${what} moved to ${copy}; ${staying} stay here`);
    }
    if (carried.renamed.length) said.push(`renamed in the results: ${carried.renamed.join(', ')}`);
    const journals = await carryJournals(abs, onDisk.design, design.design, carried);
    if (journals) said.push(journals);
    const grown = missingSentence(carried.missing);
    if (grown) said.push(grown);
    return { doc: { ...design, results: carried.kept }, ...(said.length ? { note: said.join('; ') } : {}) };
  }

  private async writeCopy(path: string, doc: ExperimentDoc): Promise<void> {
    assertSavable(doc);
    try {
      await writeExperimentFile(path, doc);
    } catch (e) {
      throw new ApiError('io', `cannot write ${path}: ${(e as Error).message}`);
    }
  }

  /**
   * A run saves its results: the design it runs (`saved`) with the labels now on disk, and the
   * results rebuilt from its journal. The file is read again only when something else changed it.
   */
  async writeRunResults(path: string, saved: ExperimentDoc, results: Results, grows?: { part: number }): Promise<void> {
    const abs = resolve(path);
    await this.serial(abs, async () => {
      if (grows) {
        // A run of what the file misses (run --missing): the file keeps its design and its other
        // runs' restarts; this run's join them.
        const disk = await this.docOnDisk(abs);
        if (!disk) throw new ApiError('io', `${abs} cannot be read to add this run's results to it (they are safe in its journal)`);
        await this.write(abs, { ...disk, results: grownResults(disk.results, results, grows.part) }, 'run');
        return;
      }
      const labels = await this.labelsOnDisk(abs);
      await this.write(abs, { ...saved, ...labels, results }, 'run');
    });
  }

  /** Stop watching everything (the process is ending). */
  /** Stops watching; resolves once the reads and writes already under way have ended (none starts after). */
  dispose(): Promise<void> {
    this.disposed = true;
    for (const { watcher } of this.dirs.values()) watcher.close();
    this.dirs.clear();
    this.watched.clear();
    for (const k of this.known.values()) clearTimeout(k.timer);
    return this.turns.settled();
  }

  private entry(abs: string): Known {
    let k = this.known.get(abs);
    if (!k) this.known.set(abs, (k = { revision: null }));
    return k;
  }

  private async labelsOnDisk(abs: string): Promise<Partial<Pick<ExperimentDoc, 'name' | 'description'>>> {
    const doc = await this.docOnDisk(abs);
    return doc ? { name: doc.name, description: doc.description } : {};
  }

  /** The document on disk, read again only when something else changed it since this process wrote it. */
  private async docOnDisk(abs: string): Promise<ExperimentDoc | null> {
    const k = this.entry(abs);
    const s = await stat(abs).catch(() => null);
    if (!s) return null;
    return k.written && s.size === k.written.size && s.mtimeMs === k.written.mtimeMs ? k.written.doc : ((await readExperimentFile(abs)).doc ?? null);
  }

  private async write(abs: string, doc: ExperimentDoc, cause: DocumentChanged['cause']): Promise<Revision> {
    let revision: Revision;
    try {
      revision = await writeExperimentFile(abs, doc);
    } catch (e) {
      throw new ApiError('io', `cannot write ${abs}: ${(e as Error).message}`);
    }
    const s = await stat(abs).catch(() => null);
    const k = this.entry(abs);
    k.revision = revision;
    k.written = s ? { size: s.size, mtimeMs: s.mtimeMs, doc } : undefined;
    if (this.watched.has(abs)) this.opts.emit?.({ path: abs, revision, cause, doc, problems: [] });
    return revision;
  }

  /** One writer at a time: in this process (a queue per file), and across processes (the file's write lock). */
  private serial<T>(abs: string, fn: () => Promise<T>): Promise<T> {
    return this.turns.take(abs, () => withWriteLock(abs, fn));
  }

  private watch(abs: string): void {
    if (this.disposed) return;
    this.watched.delete(abs);
    this.watched.add(abs);
    if (this.watched.size > MAX_WATCHED) this.unwatch(this.watched.values().next().value!);
    const dir = dirname(abs);
    let d = this.dirs.get(dir);
    if (!d) {
      let watcher: FSWatcher;
      try {
        // The folder, not the file: an atomic save replaces the file (a new inode) under its name.
        watcher = watch(dir, { persistent: false }, (_event, name) => {
          const files = this.dirs.get(dir)?.files;
          if (name && files?.has(name.toString())) this.changed(resolve(dir, name.toString()));
        });
      } catch {
        return; // a folder that cannot be watched: the file is still read afresh on every open and save
      }
      watcher.on('error', () => {});
      this.dirs.set(dir, (d = { watcher, files: new Set() }));
    }
    d.files.add(basename(abs));
  }

  private unwatch(abs: string): void {
    this.watched.delete(abs);
    const dir = dirname(abs);
    const d = this.dirs.get(dir);
    if (!d) return;
    d.files.delete(basename(abs));
    if (!d.files.size) {
      d.watcher.close();
      this.dirs.delete(dir);
    }
  }

  /** Something wrote the file: once it settles, read it, and tell every client if its revision is new. */
  private changed(abs: string): void {
    const k = this.entry(abs);
    clearTimeout(k.timer);
    k.timer = setTimeout(() => {
      if (this.disposed) return;
      // After this process's own writes, in order: their revision is known by then.
      void this.serial(abs, async () => {
        if (!this.watched.has(abs) || !existsSync(abs)) return;
        const r = await readExperimentFile(abs);
        if (!r.revision || r.revision === k.revision) return;
        k.revision = r.revision;
        k.written = undefined;
        this.opts.emit?.({ path: abs, revision: r.revision, cause: 'external', doc: r.doc, problems: r.problems });
      });
    }, this.opts.settleMs ?? 150);
  }
}
