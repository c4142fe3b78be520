// What the UI asks the backend for: opening, saving, recent files, answering prompts. Each action
// reports failures on the status line (the backend's message names the file and the JSON path)
// and never throws, so a bad file or a refused save leaves the app running.
import type { DocumentChanged, Fail, OpenedExperiment, Prompt, Result, SaveChoice } from '../../common/api.js';
import { canonicalJson } from '../../common/experiment/changes.js';
import { executionsText } from '../../common/experiment/words.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';
import { getClient } from '../client.js';
import { baseName, blankExperiment, nameFromPath, suggestedPath, UNTITLED } from './doc.js';
import { useApp, type Choice } from './index.js';

const state = () => useApp.getState();

function reportFailure(what: string, r: Fail): void {
  state().setStatus({ kind: 'error', text: `${what}: ${r.message}` });
}

function info(text: string): void {
  state().setStatus({ kind: 'info', text });
}

export async function refreshRecent(): Promise<void> {
  const r = await getClient().call('experiment.recent', {});
  if (r.ok) state().setRecent(r.value);
}

export async function loadAppInfo(): Promise<void> {
  const r = await getClient().call('app.info', {});
  if (r.ok) state().setInfo(r.value);
}

/** Ask before unsaved changes would be lost; resolves true when it is fine to go on. */
export function confirmDiscard(doing: string): Promise<boolean> {
  const { dirty, doc } = state();
  if (!dirty || !doc) return Promise.resolve(true);
  return new Promise((resolve) => {
    state().setDialog({
      kind: 'confirm',
      title: 'Unsaved changes',
      message: `"${doc.name}" has changes that are not saved. ${doing} anyway and lose them?`,
      yes: 'Discard changes',
      resolve: (yes) => {
        state().setDialog(null);
        resolve(yes);
      },
    });
  });
}

/** Ask a question with several ways on; resolves with the chosen id, or null for Cancel. */
export function choose(title: string, message: string, choices: Choice[], details?: string[], testid?: string): Promise<string | null> {
  return new Promise((resolve) => {
    state().setDialog({
      kind: 'choice',
      title,
      message,
      details,
      choices,
      testid,
      resolve: (id) => {
        state().setDialog(null);
        resolve(id);
      },
    });
  });
}

function opened(r: Result<OpenedExperiment>, what: string): boolean {
  if (!r.ok) {
    reportFailure(what, r);
    return false;
  }
  const previous = state().path;
  if (previous && previous !== r.value.path) void getClient().call('experiment.close', { path: previous });
  state().load(r.value);
  state().setDialog(null);
  const migrated = r.value.notices.length ? ` (${r.value.notices.join('; ')})` : '';
  info(`Opened ${r.value.path ?? r.value.doc.name}${migrated}`);
  return true;
}

export async function openExample(name = 'quickstart'): Promise<boolean> {
  if (!(await confirmDiscard('Open the example'))) return false;
  return opened(await getClient().call('experiment.example', { name }), `Cannot open the example ${name}`);
}

/** The Welcome page's "Is build B faster than A?": to the Hosts view, where the builds are registered, with the steps after it said. */
export function compareBuilds(): void {
  state().setView('hosts');
  info('Is build B faster than A? 1. Here: add or choose the host, and make a sandbox on it with both builds under “Server builds”. 2. New experiment: add the factor “Server build”. 3. Run: tick “Stop when answered”.');
}

export async function newExperiment(): Promise<void> {
  await startNew(blankExperiment(), 'Start a new experiment', 'New experiment: choose factors, then save it.');
}

/** A new, unsaved experiment from a template (DBT-3 at a scale factor, sysbench read-only or point select). */
export async function newFromTemplate(doc: ExperimentDoc): Promise<void> {
  const w = doc.design.workload;
  const first = w.data ? 'the run loads the data first' : w.setupSql.trim() ? 'the run makes its tables first' : 'it measures from the first restart';
  await startNew(doc, `Start ${doc.name}`, `New experiment: ${doc.name}. Save it, then run it: ${first}.`);
}

/** Replace what is open (after asking about unsaved edits: `action` names the action) with a new, unsaved doc. */
async function startNew(doc: ExperimentDoc, action: string, said: string): Promise<void> {
  if (!(await confirmDiscard(action))) return;
  const previous = state().path;
  if (previous) void getClient().call('experiment.close', { path: previous });
  state().load({ path: null, doc, notices: [], revision: null }, false);
  info(said);
}

/** Open a file by path (from the open dialog, the recent list). */
export async function openPath(path: string, opts: { confirmed?: boolean } = {}): Promise<boolean> {
  if (!opts.confirmed && !(await confirmDiscard('Open another file'))) return false;
  const ok = opened(await getClient().call('experiment.open', { path }), `Cannot open ${path}`);
  void refreshRecent();
  return ok;
}

/** Open text the UI already holds: a dropped file, a file picked in browser mode. */
export async function openText(name: string, text: string, opts: { confirmed?: boolean } = {}): Promise<boolean> {
  if (!opts.confirmed && !(await confirmDiscard('Open another file'))) return false;
  return opened(await getClient().call('experiment.parse', { name, text }), `Cannot open ${name}`);
}

/** File › Open: the native dialog where there is one, else the app's own open dialog. */
export async function openCommand(): Promise<void> {
  if (!(await confirmDiscard('Open another file'))) return;
  const r = await getClient().call('dialog.open', { title: 'Open experiment', extensions: ['varlab.json', 'json'] });
  if (!r.ok) {
    if (r.code === 'unsupported') {
      void refreshRecent();
      state().setDialog({ kind: 'open' });
    } else reportFailure('Cannot show the open dialog', r);
    return;
  }
  if (r.value) await openPath(r.value, { confirmed: true });
}

const withoutResults = ({ results: _results, ...rest }: ExperimentDoc): ExperimentDoc => rest;

/** Saves of this window not answered yet, and the changes told meanwhile (see documentChanged). */
let savesInFlight = 0;
const heldChanges: DocumentChanged[] = [];

/**
 * Write the open document to `path`. The backend keeps every measurement on disk: when the design
 * of a file with results changed, or the file changed since it was loaded, it refuses and the user
 * chooses here. A refusal (a secret, an invalid design) keeps the document dirty.
 */
export async function saveTo(path: string, opts: { choice?: SaveChoice; withoutResults?: boolean } = {}): Promise<boolean> {
  if (!state().doc) return false;
  // Saved under a new path while still "Untitled experiment" (the name that would title every plot and
  // the report): it takes the file's name, as one undoable edit; a name the user gave stays.
  const named = path !== state().path && state().doc!.name === UNTITLED ? nameFromPath(path) : null;
  if (named && named !== UNTITLED) state().edit((d) => ({ ...d, name: named }));
  const current = state();
  if (!current.doc) return false;
  const sent = opts.withoutResults ? withoutResults(current.doc) : current.doc;
  // Based on the revision loaded from this path; a new path (Save As) has none.
  const baseRevision = path === current.path ? current.revision : null;
  savesInFlight++;
  let r;
  try {
    r = await getClient().call('experiment.save', { path, doc: sent, baseRevision, ...(opts.choice ? { choice: opts.choice } : {}) });
  } finally {
    savesInFlight--;
  }
  if (r.ok) {
    // Saved under a new path (Save As): the window shows that file now, not the one it came from.
    if (current.path && current.path !== r.value.path) void getClient().call('experiment.close', { path: current.path });
    state().markSaved(r.value.path, current.doc, r.value.doc, r.value.revision);
  }
  // Changes told while this save was in flight: this save's own is now known by its revision.
  for (const c of heldChanges.splice(0)) void documentChanged(c);
  // Not saved: the name goes back as it was (unless the user edited meanwhile).
  if (!r.ok && named && state().doc === current.doc) state().undo();
  if (!r.ok) {
    if (r.code === 'results-at-stake' && r.details?.resultsAtStake) return resultsAtStake(path, r);
    if (r.code === 'conflict') return conflict(path, r);
    reportFailure(`Not saved`, r);
    return false;
  }
  state().setDialog(null);
  info(`Saved ${r.value.path}${r.value.note ? `; ${r.value.note}` : ''}`);
  void refreshRecent();
  return true;
}

/**
 * The design of a file with results changed: save as a new experiment, or keep the old results in a
 * copy (all of them; or, when the edit only removes cells or queries, exactly what it removes).
 */
async function resultsAtStake(path: string, r: Fail): Promise<boolean> {
  const at = r.details!.resultsAtStake!;
  const plural = (n: number) => `${n} restart${n === 1 ? '' : 's'}`;
  const measured = executionsText(at.executions, state().doc?.design.workload.kind);
  const restarts = plural(at.restarts);
  const m = at.moving;
  const trimmed = m?.trimmed ? ` and the timings of the removed queries in ${plural(m.trimmed)}` : '';
  const choice = await choose(
    'This file holds results',
    m
      ? `Your edit removes what ${restarts}${trimmed} of ${baseName(path)} measured (${measured}). The other ${plural(m.staying)} stay in the file, under the new design:`
      : `${baseName(path)} holds ${restarts} (${measured}) measured with its current design. Your edit changes that design:`,
    [
      { id: 'new', label: 'Save as a new experiment…', hint: `Your design goes to a new file, without results; ${baseName(path)} keeps its results.`, style: 'primary' },
      m
        ? { id: 'keep', label: `Move the ${restarts}${trimmed ? ' and timings' : ''} to a copy and save here`, hint: `They go to ${at.keepResultsAs} (with the design they were measured with); ${baseName(path)} gets your design and keeps the other ${plural(m.staying)}.` }
        : { id: 'keep', label: `Keep the ${restarts} in a copy and save here`, hint: `The file as it is now is copied to ${at.keepResultsAs}; ${baseName(path)} gets your design, without results.` },
    ],
    at.changes,
    'results-at-stake',
  );
  if (choice === 'keep') return saveTo(path, { choice: 'keep-results-copy' });
  if (choice === 'new') return saveAs({ withoutResults: true, suggested: path.replace(/(\.varlab)?\.json$/i, '-new.varlab.json') });
  return false;
}

/** The file changed on disk since it was loaded (a run, another program): reload it, or save over it. */
async function conflict(path: string, r: Fail): Promise<boolean> {
  const choice = await choose('Changed on disk', r.message, [
    { id: 'reload', label: 'Reload from disk', hint: 'Your unsaved edits are dropped.' },
    { id: 'overwrite', label: 'Save mine over it', hint: 'Measurements in the file are still kept: you are asked again if the design would drop them.', style: 'primary' },
  ]);
  if (choice === 'overwrite') return saveTo(path, { choice: 'overwrite' });
  if (choice === 'reload') await openPath(path, { confirmed: true });
  return false;
}

export async function saveAs(opts: { withoutResults?: boolean; suggested?: string } = {}): Promise<boolean> {
  const { doc, path } = state();
  if (!doc) return false;
  if (!state().info) await loadAppInfo();
  const suggested = opts.suggested ?? suggestedPath(doc, path, state().info?.documents ?? '');
  const title = opts.withoutResults ? 'Save as a new experiment' : 'Save experiment';
  const r = await getClient().call('dialog.save', { title, suggested, extensions: ['varlab.json'] });
  if (!r.ok) {
    if (r.code === 'unsupported') state().setDialog({ kind: 'save-as', suggested, withoutResults: opts.withoutResults });
    else reportFailure('Cannot show the save dialog', r);
    return false;
  }
  return r.value ? saveTo(r.value, { withoutResults: opts.withoutResults }) : false;
}

export async function save(): Promise<boolean> {
  const { doc, path } = state();
  if (!doc) return false;
  return path ? saveTo(path) : saveAs();
}

/** A file dropped onto the window or picked with a file input: read it here, the backend checks it. */
export async function openFile(file: File): Promise<boolean> {
  if (!(await confirmDiscard('Open the dropped file'))) return false;
  let text: string;
  try {
    text = await file.text();
  } catch (e) {
    state().setStatus({ kind: 'error', text: `Cannot read ${file.name}: ${(e as Error).message}` });
    return false;
  }
  return openText(file.name, text, { confirmed: true });
}

/**
 * The open file changed on disk. With nothing unsaved, the view shows what is there now (a run's
 * results reach Analysis without reopening). With unsaved edits: a run's results join them; a change
 * by someone else (another program, a Save in another window) is the user's to decide.
 */
export async function documentChanged(change: DocumentChanged): Promise<void> {
  // A save of this window may be the cause: decided once its answer (and revision) is in.
  if (savesInFlight > 0) {
    heldChanges.push(change);
    return;
  }
  const s = state();
  if (!s.path || change.path !== s.path || change.revision === s.revision) return;
  if (!change.doc) {
    s.setStatus({ kind: 'error', text: `${change.path} changed on disk and no longer reads as an experiment: ${change.problems[0] ?? ''}` });
    return;
  }
  const doc = change.doc;
  if (!s.dirty) {
    s.showFromDisk({ ...change, doc });
    if (change.cause !== 'run') info(`${baseName(change.path)} changed on disk; showing it as it is now`);
    return;
  }
  if (change.cause === 'run') {
    s.keepEditsOver({ ...change, doc });
    return;
  }
  const who = change.cause === 'save' ? 'was saved from another window' : 'was changed by another program';
  const choice = await choose('Changed on disk', `${baseName(change.path)} ${who}, and you have unsaved edits.`, [
    { id: 'reload', label: 'Reload from disk', hint: 'Your unsaved edits are dropped.' },
    { id: 'keep', label: 'Keep my edits', hint: 'Save then writes your version over it; measurements in the file are kept (a design edit that would drop them still asks).', style: 'primary' },
  ]);
  // The file may have changed again while the question was open: only what is current counts.
  if (state().path !== change.path) return;
  if (choice === 'reload') await openPath(change.path, { confirmed: true });
  else if (choice === 'keep') state().keepEditsOver({ ...change, doc });
}

export function listenForDocuments(): () => void {
  return getClient().on('document.changed', (c) => void documentChanged(c));
}

/** The transport's state for the UI; after a reconnect, anything missed meanwhile is fetched again. */
export function listenForTransport(onReconnected: (was: 'connecting' | 'reconnecting') => void): () => void {
  return getClient().on('transport', (t) => {
    const was = state().transport.state;
    state().setTransport(t);
    if (t.state === 'connected' && was !== 'connected') {
      onReconnected(was);
      void refreshOpenDocument();
    }
  });
}

/** Read the open file again (a change may have been missed while disconnected). */
async function refreshOpenDocument(): Promise<void> {
  const path = state().path;
  if (!path) return;
  const r = await getClient().call('experiment.open', { path });
  if (!r.ok || !r.value.revision) return;
  // Only results (a run saving) when the design is still the one last loaded or saved.
  const saved = state().savedKey;
  const resultsOnly = saved !== null && canonicalJson((JSON.parse(saved) as ExperimentDoc).design) === canonicalJson(r.value.doc.design);
  await documentChanged({ path, revision: r.value.revision, cause: resultsOnly ? 'run' : 'external', doc: r.value.doc, problems: [] });
}

/** Listen for questions from the backend; returns the unsubscribe function. */
export function listenForPrompts(): () => void {
  return getClient().on('prompt', (p: Prompt) => state().addPrompt(p));
}

/**
 * Answer a prompt. The secret goes straight from the dialog's own field to the backend and is
 * never put in the store (nor anywhere else that outlives this call).
 */
export async function answerPrompt(id: string, accept: boolean, secret?: string, remember?: boolean): Promise<void> {
  state().removePrompt(id);
  const r = await getClient().call('prompt.answer', { id, accept, ...(secret !== undefined ? { secret } : {}), ...(remember ? { remember } : {}) });
  if (!r.ok) reportFailure('Cannot answer the question', r);
}
