// The UI's state, in zustand slices: the open experiment with its undo history, the screen the
// user is on, dialogs, prompts from the backend and the status line. Asynchronous work that talks
// to the backend (open, save, …) lives in actions.ts and only calls the setters here.
//
// Other views read the open experiment with `useApp((s) => s.doc)` and `useApp((s) => s.path)`.
import { create, type StateCreator } from 'zustand';
import type { AppInfo, OpenedExperiment, Prompt } from '../../common/api.js';
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
  markSaved(path: string, doc: ExperimentDoc): void;
}

export type Dialog =
  | { kind: 'open' }
  | { kind: 'save-as'; suggested: string }
  | { kind: 'confirm'; title: string; message: string; yes: string; resolve: (yes: boolean) => void };

export interface UiSlice {
  view: View;
  dialog: Dialog | null;
  status: Status | null;
  recent: string[];
  info: AppInfo | null;
  setView(view: View): void;
  setDialog(dialog: Dialog | null): void;
  setStatus(status: Status | null): void;
  setRecent(recent: string[]): void;
  setInfo(info: AppInfo): void;
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
  dirty: false,
  history: emptyHistory(),
  notices: [],
  generation: 0,
  load: (opened, clean = true) =>
    set({
      generation: get().generation + 1,
      doc: opened.doc,
      path: opened.path,
      savedKey: clean ? docKey(opened.doc) : null,
      dirty: !clean,
      history: emptyHistory(),
      notices: opened.notices,
      // Views about the open experiment stay; from the others, an opened file shows its design.
      view: ['design', 'plan', 'run', 'analysis'].includes(get().view) ? get().view : 'design',
    }),
  close: () => set({ doc: null, path: null, savedKey: null, dirty: false, history: emptyHistory(), notices: [] }),
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
  markSaved: (path, saved) => {
    const savedKey = docKey(saved);
    // Edits made while the save was in flight keep the document dirty.
    set({ path, savedKey, dirty: dirtyAfter(get().doc, savedKey), history: { ...get().history, lastKey: null } });
  },
});

export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set) => ({
  view: 'design',
  dialog: null,
  status: null,
  recent: [],
  info: null,
  setView: (view) => set({ view }),
  setDialog: (dialog) => set({ dialog }),
  setStatus: (status) => set({ status }),
  setRecent: (recent) => set({ recent }),
  setInfo: (info) => set({ info }),
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
