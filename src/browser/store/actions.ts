// What the UI asks the backend for: opening, saving, recent files, answering prompts. Each action
// reports failures on the status line (the backend's message names the file and the JSON path)
// and never throws, so a bad file or a refused save leaves the app running.
import type { Fail, OpenedExperiment, Prompt, Result } from '../../common/api.js';
import { getClient } from '../client.js';
import { blankExperiment, suggestedPath } from './doc.js';
import { useApp } from './index.js';

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

function opened(r: Result<OpenedExperiment>, what: string): boolean {
  if (!r.ok) {
    reportFailure(what, r);
    return false;
  }
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

export async function newExperiment(): Promise<void> {
  if (!(await confirmDiscard('Start a new experiment'))) return;
  state().load({ path: null, doc: blankExperiment(), notices: [] }, false);
  info('New experiment: choose factors, then save it.');
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

/** Write the open document to `path`. A refusal (a secret, an invalid design) keeps it dirty. */
export async function saveTo(path: string): Promise<boolean> {
  const doc = state().doc;
  if (!doc) return false;
  const r = await getClient().call('experiment.save', { path, doc });
  if (!r.ok) {
    reportFailure(`Not saved`, r);
    return false;
  }
  state().markSaved(r.value.path, doc);
  state().setDialog(null);
  info(`Saved ${r.value.path}`);
  void refreshRecent();
  return true;
}

export async function saveAs(): Promise<boolean> {
  const { doc, path } = state();
  if (!doc) return false;
  if (!state().info) await loadAppInfo();
  const suggested = suggestedPath(doc, path, state().info?.home ?? '');
  const r = await getClient().call('dialog.save', { title: 'Save experiment', suggested, extensions: ['varlab.json'] });
  if (!r.ok) {
    if (r.code === 'unsupported') state().setDialog({ kind: 'save-as', suggested });
    else reportFailure('Cannot show the save dialog', r);
    return false;
  }
  return r.value ? saveTo(r.value) : false;
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
