// Desktop mode: the API over Electron IPC, through the two functions the preload exposes.
import type { ArgsOf, Client, EventName, Events, Method, Result, ResultOf } from '../../common/api.js';

export interface PreloadBridge {
  invoke(method: string, args: unknown): Promise<unknown>;
  on(event: string, listener: (payload: unknown) => void): () => void;
}

export function electronBridge(): PreloadBridge | null {
  return (window as unknown as { varlab?: PreloadBridge }).varlab ?? null;
}

export function electronClient(bridge: PreloadBridge): Client {
  return {
    transport: 'electron',
    call<M extends Method>(method: M, args: ArgsOf<M>) {
      return bridge.invoke(method, args) as Promise<Result<ResultOf<M>>>;
    },
    on<E extends EventName>(event: E, listener: (payload: Events[E]) => void) {
      // IPC to the backend in the same app never drops: there is no transport state to tell.
      if (event === 'transport') return () => {};
      return bridge.on(event, listener as (p: unknown) => void);
    },
  };
}
