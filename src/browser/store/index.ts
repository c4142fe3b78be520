// The UI's state, in zustand slices: the open experiment with its undo history, the screen the
// user is on, dialogs, prompts from the backend and the status line. Asynchronous work that talks
// to the backend (open, save, …) lives in actions.ts and only calls the setters here.
//
// Other views read the open experiment with `useApp((s) => s.doc)` and `useApp((s) => s.path)`.
import { create, type StateCreator } from 'zustand';
import type { AppInfo, DocumentChanged, OpenedExperiment, Prompt, TransportState } from '../../common/api.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';
import { docKey } from './doc.js';
import { emptyHistory, recordEdit, redo, undo, type History } from './history.js';

export type View = 'design' | 'plan' | 'run' | 'analysis' | 'compare' | 'hosts';

export interface Status {
  kind: 'error' | 'info';
  text: string;
}

/** The open experiment and its undo history. */
export interface DocSlice {
  doc: ExperimentDoc | null;
  /** Where it is saved; null for an example, a dropped file or a new experiment. */
  path: string | null;
  /** The document as last opened or saved (as JSON), to tell whether there is anything to lose. */
  savedKey: string | null;
  /** The revision (content hash) of the file on disk that the saved document is; sent with Save. */
  revision: string | null;
  dirty: boolean;
  history: History<ExperimentDoc>;
  /** Migration notices from opening, shown once. */
  notices: string[];
  /** Counts documents loaded, so views can start afresh (e.g. forget half-typed fields) on a new one. */
  generation: number;
  /** Show a document freshly opened; `clean` is false for one that was never saved (new). */
  load(opened: OpenedExperiment, clean?: boolean): void;
  close(): void;
  /**
   * Every change of the design goes through here, so it can be undone. `fn` returns the new
   * document (never mutates). Edits with the same `key` in a row are one undo step.
   */
  edit(fn: (doc: ExperimentDoc) => ExperimentDoc, key?: string): void;
  undo(): void;
  redo(): void;
  /**
   * A save went through: `sent` is what was sent, `saved` what is now in the file (a labels-only edit
   * keeps the results on disk). Shown as the document unless the user edited meanwhile.
   */
  markSaved(path: string, sent: ExperimentDoc, saved: ExperimentDoc, revision: string): void;
  /** The open file changed on disk and there is nothing unsaved: show what is there now (no reopening). */
  showFromDisk(change: DocumentChanged & { doc: ExperimentDoc }): void;
  /** The open file changed on disk while there are unsaved edits to keep: its results join them, and Save is based on the new revision. */
  keepEditsOver(change: DocumentChanged & { doc: ExperimentDoc }): void;
}

export type Dialog =
  | { kind: 'open' }
  /** withoutResults: "save as a new experiment", the design alone. */
  | { kind: 'save-as'; suggested: string; withoutResults?: boolean }
  | { kind: 'confirm'; title: string; message: string; yes: string; resolve: (yes: boolean) => void }
  /** A question with several ways on; resolve(null) is Cancel. */
  | { kind: 'choice'; title: string; message: string; details?: string[]; choices: Choice[]; resolve: (id: string | null) => void; testid?: string };

export interface Choice {
  id: string;
  label: string;
  /** What happens, under the button's label. */
  hint?: string;
  style?: 'primary' | 'danger';
}

export interface UiSlice {
  view: View;
  dialog: Dialog | null;
  status: Status | null;
  recent: string[];
  info: AppInfo | null;
  /** The connection to the backend: 'reconnecting' while the transport restores it. */
  transport: TransportState;
  setView(view: View): void;
  setDialog(dialog: Dialog | null): void;
  setStatus(status: Status | null): void;
  setRecent(recent: string[]): void;
  setInfo(info: AppInfo): void;
  setTransport(t: TransportState): void;
}

/** Questions from the backend (host keys, passwords). Only the question is kept, never an answer. */
export interface PromptSlice {
  prompts: Prompt[];
  addPrompt(p: Prompt): void;
  removePrompt(id: string): void;
}

export type AppState = DocSlice & UiSlice & PromptSlice;

const dirtyAfter = (doc: ExperimentDoc | null, savedKey: string | null) => docKey(doc) !== savedKey;

export const createDocSlice: StateCreator<AppState, [], [], DocSlice> = (set, get) => ({
  doc: null,
  path: null,
  savedKey: null,
  revision: null,
  dirty: false,
  history: emptyHistory(),
  notices: [],
  generation: 0,
  load: (opened, clean = true) =>
    set({
      generation: get().generation + 1,
      doc: opened.doc,
      path: opened.path,
      revision: opened.revision,
      savedKey: clean ? docKey(opened.doc) : null,
      dirty: !clean,
      history: emptyHistory(),
      notices: opened.notices,
      // Views about the open experiment stay; from the others, an opened file shows its design.
      view: ['design', 'plan', 'run', 'analysis'].includes(get().view) ? get().view : 'design',
    }),
  close: () => set({ doc: null, path: null, savedKey: null, revision: null, dirty: false, history: emptyHistory(), notices: [] }),
  edit: (fn, key) => {
    const { doc, history, savedKey } = get();
    if (!doc) return;
    const next = fn(doc);
    if (next === doc) return;
    set({ doc: next, history: recordEdit(history, doc, key), dirty: dirtyAfter(next, savedKey) });
  },
  undo: () => {
    const { doc, history, savedKey } = get();
    const r = doc && undo(history, doc);
    if (r) set({ doc: r.value, history: r.history, dirty: dirtyAfter(r.value, savedKey) });
  },
  redo: () => {
    const { doc, history, savedKey } = get();
    const r = doc && redo(history, doc);
    if (r) set({ doc: r.value, history: r.history, dirty: dirtyAfter(r.value, savedKey) });
  },
  markSaved: (path, sent, saved, revision) => {
    const savedKey = docKey(saved);
    // Edits made while the save was in flight stay, and keep the document dirty.
    const doc = get().doc === sent ? saved : get().doc;
    set({ path, doc, revision, savedKey, dirty: dirtyAfter(doc, savedKey), history: { ...get().history, lastKey: null } });
  },
  showFromDisk: (change) => set({ doc: change.doc, revision: change.revision, savedKey: docKey(change.doc), dirty: false, history: emptyHistory() }),
  keepEditsOver: (change) => {
    const mine = get().doc;
    if (!mine) return;
    const doc = change.doc.results ? { ...mine, results: change.doc.results } : (({ results: _r, ...rest }) => rest)(mine);
    set({ doc, revision: change.revision, savedKey: docKey(change.doc), dirty: dirtyAfter(doc, docKey(change.doc)) });
  },
});

export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set) => ({
  view: 'design',
  dialog: null,
  status: null,
  recent: [],
  info: null,
  transport: { state: 'connected' },
  setView: (view) => set({ view }),
  setDialog: (dialog) => set({ dialog }),
  setStatus: (status) => set({ status }),
  setRecent: (recent) => set({ recent }),
  setInfo: (info) => set({ info }),
  setTransport: (transport) => set({ transport }),
});

export const createPromptSlice: StateCreator<AppState, [], [], PromptSlice> = (set) => ({
  prompts: [],
  addPrompt: (p) => set((s) => ({ prompts: [...s.prompts.filter((x) => x.id !== p.id), p] })),
  removePrompt: (id) => set((s) => ({ prompts: s.prompts.filter((x) => x.id !== id) })),
});

export const useApp = create<AppState>()((...a) => ({
  ...createDocSlice(...a),
  ...createUiSlice(...a),
  ...createPromptSlice(...a),
}));
