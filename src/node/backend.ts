// createBackend(): the one implementation of the API contract, whatever carries it
// (Electron IPC in the desktop app, a WebSocket in browser mode).
import { ApiError, fail, ok, type ArgsOf, type Backend, type CallOrigin, type EventName, type Events, type Method, type Result, type ResultOf } from '../common/api.js';
import { experimentHandlers } from './api/experiment.js';
import { hostHandlers } from './api/host.js';
import { runHandlers } from './api/run.js';
import { exportHandlers } from './api/export.js';
import { localHandlers } from './api/local.js';
import { checkedArgs } from './api/args.js';
import { deadlineMs, withDeadline } from './api/deadline.js';
import { EventHub } from './api/hub.js';
import { createPathPolicy, type PathPolicy } from './api/paths.js';
import { DocumentService } from './documents/service.js';
import { RunService } from './runs/service.js';

export type Handler<M extends Method> = (args: ArgsOf<M>, origin: CallOrigin) => Promise<ResultOf<M>>;
export type Handlers = { [M in Method]?: Handler<M> };

export interface BackendOptions {
  transport: 'electron' | 'websocket';
  /** Native dialogs, supplied by the Electron shell; browser mode has none. */
  dialogs?: Pick<Handlers, 'dialog.open' | 'dialog.save'>;
  /** How long a request may take before it is answered `timeout` (tests shorten it); api/deadline.ts by default. */
  deadlineMs?: (method: Method) => number;
  /** How long a question waits for its answer (tests shorten it); api/hub.ts PROMPT_MS by default. */
  promptMs?: number;
}

export interface BackendContext {
  options: BackendOptions;
  hub: EventHub;
  paths: PathPolicy;
  /** The owner of every open experiment file: revisions, changes, saves that keep measurements. */
  documents: DocumentService;
  /** The owner of every run in this process. */
  runs: RunService;
}

/** The native dialogs, each answer registered as picked: a file to read, a file to save, a folder to write into. */
function pickingDialogs(dialogs: BackendOptions['dialogs'], paths: PathPolicy): Handlers {
  const open = dialogs?.['dialog.open'];
  const save = dialogs?.['dialog.save'];
  return {
    ...(open && {
      'dialog.open': async (args, origin) => {
        const path = await open(args, origin);
        if (path) paths.picked(path, args.folder ? 'write' : 'read', args.folder ? 'folder' : 'file');
        return path;
      },
    }),
    ...(save && {
      'dialog.save': async (args, origin) => {
        const path = await save(args, origin);
        if (path) paths.picked(path, 'write', 'file');
        return path;
      },
    }),
  };
}

export interface DisposableBackend extends Backend {
  /** A client disconnected: questions asked of it go to every client (api/hub.ts). */
  clientGone(clientId: string): void;
  /** Cancel every run and restore every host (bounded), stop watching files; says what it did. */
  dispose(): Promise<string>;
}

export function createBackend(options: BackendOptions): DisposableBackend {
  const hub = new EventHub(options.promptMs);
  // The desktop app has native dialogs: there, only what they return (and varlab's own files) is picked.
  const paths = createPathPolicy({ pickedOnly: options.transport === 'electron' });
  let runs: RunService | null = null;
  const documents = new DocumentService({ emit: (change) => hub.emit('document.changed', change), busy: (path) => runs!.busyWith(path) });
  runs = new RunService({ documents, prompt: hub.prompt, onBatch: (batch) => hub.toFollowers('run.batch', batch, runs!.pathOf(batch.runId)) });
  const ctx: BackendContext = { options, hub, paths, documents, runs };
  const handlers: Handlers = {
    ...experimentHandlers(ctx),
    ...hostHandlers(ctx),
    ...runHandlers(ctx),
    ...exportHandlers(ctx),
    ...localHandlers(ctx),
    ...pickingDialogs(options.dialogs, paths),
  };
  return {
    async call<M extends Method>(method: M, args: ArgsOf<M>, origin: CallOrigin = { clientId: 'local' }): Promise<Result<ResultOf<M>>> {
      const handler = handlers[method] as Handler<M> | undefined;
      if (!handler) return fail('unsupported', `${method} is not available in this mode`);
      try {
        const work = (async () => handler(await paths.checkArgs(method, checkedArgs(method, args)), origin))();
        return ok(await withDeadline(method, work, (options.deadlineMs ?? deadlineMs)(method)));
      } catch (e) {
        if (e instanceof ApiError) return fail(e.code, e.message, e.details);
        return fail('internal', e instanceof Error ? e.message : String(e));
      }
    },
    on<E extends EventName>(event: E, listener: (payload: Events[E], to?: string) => void) {
      return hub.on(event, listener);
    },
    clientGone(clientId: string) {
      hub.clientGone(clientId);
    },
    async dispose() {
      // Questions still open are answered "no" first, so a run waiting on one can end.
      const said = runs!.dispose();
      await hub.dispose();
      documents.dispose();
      return said;
    },
  };
}
