// The whole surface the renderer gets: one `invoke` and one `on`, both checked against the
// allow-lists of the API contract. No Node, no ipcRenderer, nothing else crosses the bridge.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { isEventName, isMethod } from '../src/common/api.js';

contextBridge.exposeInMainWorld('varlab', {
  invoke(method: unknown, args: unknown): Promise<unknown> {
    if (!isMethod(method)) return Promise.resolve({ ok: false, code: 'invalid-argument', message: `unknown method ${String(method)}` });
    return ipcRenderer.invoke('varlab:invoke', method, args);
  },
  on(event: unknown, listener: (payload: unknown) => void): () => void {
    if (!isEventName(event)) throw new Error(`unknown event ${String(event)}`);
    const handler = (_e: IpcRendererEvent, name: string, payload: unknown) => {
      if (name === event) listener(payload);
    };
    ipcRenderer.on('varlab:event', handler);
    return () => ipcRenderer.removeListener('varlab:event', handler);
  },
});
