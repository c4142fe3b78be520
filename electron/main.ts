// The desktop shell: one window on the same UI as browser mode, the backend in this process,
// and Electron's security checklist (https://www.electronjs.org/docs/latest/tutorial/security):
// context isolation, sandbox, no Node in the renderer, a strict CSP, a custom protocol instead of
// file://, every permission denied (request and check), navigation, new windows and webviews
// blocked for every web contents, every IPC message checked for its sender frame and its method
// name, and files read or written only where the user picked them (src/node/api/paths.ts). The
// fuses are flipped when the app is packaged (scripts/fuses.ts). test/unit/electron-security.test.ts
// loads this file and the preload with a stand-in for the Electron binary and checks each item.
import { app, BrowserWindow, dialog, ipcMain, net, protocol, session, type IpcMainInvokeEvent } from 'electron';
import { join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EVENTS, fail, isMethod } from '../src/common/api.js';
import { createBackend } from '../src/node/backend.js';
import { setOwnProcesses } from '../src/node/host/local.js';
import { useSecretStore } from '../src/node/secrets.js';
import { keychainSecretStore } from './secrets.js';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const PUBLIC = join(ROOT, 'public');
const ORIGIN = 'app://varlab';
const CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
app.enableSandbox();

const backend = createBackend({
  transport: 'electron',
  dialogs: {
    'dialog.open': async ({ title, extensions, folder }) => {
      const r = folder
        ? await dialog.showOpenDialog({ title, properties: ['openDirectory', 'createDirectory'] })
        : await dialog.showOpenDialog({ title, properties: ['openFile'], filters: [{ name: 'Files', extensions }] });
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
    'dialog.save': async ({ title, suggested, extensions }) => {
      const r = await dialog.showSaveDialog({ title, defaultPath: suggested, filters: [{ name: 'Files', extensions }] });
      return r.canceled ? null : (r.filePath ?? null);
    },
  },
});

// The app's renderer, GPU and utility processes are varlab's own: a local run's host-noise sample
// does not count their CPU (the live plots' drawing) as other processes' (issue 22, Deliver 5).
setOwnProcesses(() => app.getAppMetrics().map((m) => m.pid));

/** Whether a URL is our own page: parsed, not prefix-matched (`app://varlab.evil/` must not pass). */
function ourOrigin(url: string | undefined): boolean {
  try {
    const u = new URL(url ?? '');
    return u.protocol === 'app:' && u.host === 'varlab';
  } catch {
    return false;
  }
}

/** Only our own page, in the top frame, may call the backend. */
function trustedSender(e: IpcMainInvokeEvent): boolean {
  return ourOrigin(e.senderFrame?.url) && e.senderFrame === e.sender.mainFrame;
}

/**
 * Permissions (camera, notifications, geolocation, HID...): none, asked or checked. The one exception
 * is writing sanitized text to the clipboard from our own page ("Copy as Markdown").
 */
function permissionAllowed(permission: string, origin: string | undefined): boolean {
  return permission === 'clipboard-sanitized-write' && ourOrigin(origin);
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'varlab',
    webPreferences: {
      preload: join(ROOT, 'dist', 'electron', 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  });
  // The renderer's beforeunload says there are unsaved changes: let the person decide.
  win.webContents.on('will-prevent-unload', (e) => {
    const choice = dialog.showMessageBoxSync(win, {
      type: 'question',
      buttons: ['Discard changes and close', 'Keep editing'],
      defaultId: 1,
      cancelId: 1,
      message: 'This experiment has unsaved changes.',
    });
    if (choice === 0) e.preventDefault();
  });
  win.webContents.once('did-finish-load', () => console.log('varlab: window ready'));
  void win.loadURL(`${ORIGIN}/index.html`);
  return win;
}

// Every web contents, the window's and any other (a webview, a popup), may not navigate away from our
// page, open windows or attach webviews.
app.on('web-contents-created', (_e, contents) => {
  contents.on('will-navigate', (e) => e.preventDefault());
  contents.on('will-redirect', (e) => e.preventDefault());
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

app.whenReady().then(() => {
  // safeStorage works only once the app is ready; until the user ticks "remember", nothing is kept.
  useSecretStore(keychainSecretStore());
  protocol.handle('app', (request) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(request.url).pathname);
    } catch {
      return new Response('bad request', { status: 400 });
    }
    const file = normalize(join(PUBLIC, path));
    if (!file.startsWith(PUBLIC + sep)) return new Response('forbidden', { status: 403 });
    return net.fetch(pathToFileURL(file).toString()).then(
      (r) => new Response(r.body, { status: r.status, headers: { 'content-type': r.headers.get('content-type') ?? '', 'content-security-policy': CSP } }),
    );
  });
  session.defaultSession.setPermissionRequestHandler((wc, permission, callback, details) => callback(permissionAllowed(permission, details.requestingUrl ?? wc?.getURL())));
  session.defaultSession.setPermissionCheckHandler((_wc, permission, requestingOrigin) => permissionAllowed(permission, requestingOrigin));
  session.defaultSession.setDevicePermissionHandler(() => false);

  ipcMain.handle('varlab:invoke', (e, method: unknown, args: unknown) => {
    if (!trustedSender(e)) return fail('invalid-argument', 'refused: message from an untrusted frame');
    if (!isMethod(method)) return fail('invalid-argument', `unknown method ${String(method)}`);
    return backend.call(method, (args && typeof args === 'object' ? args : {}) as never, { clientId: String(e.sender.id) });
  });

  const win = createWindow();
  // The window's client id is its webContents id (as varlab:invoke names it): a question asked for its request goes to it.
  const clientId = String(win.webContents.id);
  for (const event of EVENTS) {
    backend.on(event, (payload, to) => {
      if (!win.isDestroyed() && (to === undefined || to === clientId)) win.webContents.send('varlab:event', event, payload);
    });
  }
  win.webContents.on('destroyed', () => backend.clientGone(clientId));
});

// Closing the window (or quitting) cancels every run and restores its host before the app goes:
// once, bounded by the run service's own wait.
let disposed: Promise<void> | null = null;
function disposeBackend(): Promise<void> {
  disposed ??= backend.dispose().then((said) => console.log(`varlab: ${said}`));
  return disposed;
}

app.on('window-all-closed', async () => {
  await disposeBackend();
  app.quit();
});

app.on('before-quit', (e) => {
  if (disposed) return;
  e.preventDefault();
  void disposeBackend().then(() => app.quit());
});
