// Electron's security checklist (https://www.electronjs.org/docs/latest/tutorial/security), item by
// item, against the real electron/main.ts and electron/preload.ts, loaded with a stand-in for the
// Electron binary (test/fixtures/electron-stand-in.ts). Also the fuses packaging flips (scripts/fuses.ts),
// and the desktop app's file access: only what the user picked in a dialog or varlab's own folders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FuseState, FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { electronStandIn, loadElectronEntry, type Recorded } from '../fixtures/electron-stand-in.js';
import { applyFuses, fuseSettings } from '../../scripts/fuses.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-electron-'));
const home = join(dir, 'varlab-home');
let rec: Recorded;
let nextDialogAnswer: string | null = null;

before(async () => {
  process.env.VARLAB_HOME = home;
  mkdirSync(home, { recursive: true });
  const fake = electronStandIn({ dialogAnswer: () => nextDialogAnswer });
  rec = fake.rec;
  await loadElectronEntry('electron/main.ts', fake.module);
  await new Promise((r) => setTimeout(r, 50)); // app.whenReady().then(…)
  await loadElectronEntry('electron/preload.ts', fake.module);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const win = () => {
  assert.equal(rec.windows.length, 1, 'one window');
  return rec.windows[0];
};
const prefs = () => win().options.webPreferences as Record<string, unknown>;

/** A call through the IPC channel as the renderer makes it, from a frame at `url`. */
function invoke(method: string, args: unknown, frame: { url: string; main?: boolean } = { url: 'app://varlab/index.html' }) {
  const sender = { id: 1, mainFrame: { url: 'app://varlab/index.html' } };
  const senderFrame = frame.main === false ? { url: frame.url } : Object.assign(sender.mainFrame, { url: frame.url });
  return rec.ipcHandlers.get('varlab:invoke')!({ sender, senderFrame }, method, args) as Promise<{ ok: boolean; code?: string; message?: string; value?: unknown }>;
}

test('1, 18. only secure content: the window loads the app from its own privileged, secure app:// scheme, not file://', () => {
  assert.equal(win().webContents.loaded, 'app://varlab/index.html');
  const scheme = rec.privilegedSchemes.find((s) => s.scheme === 'app');
  assert.equal(scheme?.privileges.secure, true);
  assert.equal(scheme?.privileges.standard, true);
});

test('2-4. no Node.js in the renderer, context isolation, sandbox for every renderer', () => {
  assert.equal(prefs().nodeIntegration, false);
  assert.notEqual(prefs().nodeIntegrationInWorker, true);
  assert.notEqual(prefs().nodeIntegrationInSubFrames, true);
  assert.equal(prefs().contextIsolation, true);
  assert.equal(prefs().sandbox, true);
  assert.equal(rec.sandboxEnabled, true, 'app.enableSandbox(): every renderer, not only this window');
  assert.match(String(prefs().preload), /dist\/electron\/preload\.cjs$/);
});

test('5. permissions: every request and every check denied; only sanitized clipboard writes from our own page', async () => {
  assert.ok(rec.permissionRequest && rec.permissionCheck && rec.devicePermission, 'request, check and device handlers are set');
  const request = (permission: string, url: string) =>
    new Promise<boolean>((resolve) => rec.permissionRequest!({ getURL: () => url }, permission, resolve, { requestingUrl: url }));
  for (const p of ['geolocation', 'notifications', 'media', 'openExternal', 'clipboard-read', 'fileSystem', 'hid', 'unknown']) {
    assert.equal(await request(p, 'app://varlab/index.html'), false, p);
    assert.equal(rec.permissionCheck!(null, p, 'app://varlab'), false, p);
  }
  assert.equal(await request('clipboard-sanitized-write', 'app://varlab/index.html'), true);
  assert.equal(rec.permissionCheck!(null, 'clipboard-sanitized-write', 'app://varlab'), true);
  assert.equal(await request('clipboard-sanitized-write', 'https://evil.example/'), false);
  assert.equal(rec.permissionCheck!(null, 'clipboard-sanitized-write', 'app://varlab.evil.example'), false);
  assert.equal(rec.devicePermission!({ deviceType: 'usb' }), false);
});

test('6, 8-10. web security on; no insecure content, experimental features or Blink features', () => {
  assert.equal(prefs().webSecurity, true);
  assert.equal(prefs().allowRunningInsecureContent, false);
  assert.notEqual(prefs().experimentalFeatures, true);
  assert.equal(prefs().enableBlinkFeatures, undefined);
});

test('7. a strict Content-Security-Policy on every page the app serves; paths outside public/ refused', async () => {
  const handler = rec.protocolHandlers.get('app')!;
  const res: Response = await handler({ url: 'app://varlab/index.html' });
  assert.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-eval|https?:|\*/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal((await handler({ url: 'app://varlab/..%2Fpackage.json' })).status, 403);
  assert.equal((await handler({ url: 'app://varlab/%c0' })).status, 400);
});

test('11-12. no webviews: the tag is off and attaching one is prevented in every web contents', () => {
  assert.equal(prefs().webviewTag, false);
  assert.equal(win().webContents.fire('will-attach-webview', {}, { src: 'https://evil.example/' }), true);
});

test('13-14. no navigation (nor redirects, nor dropped files) and no new windows', () => {
  const wc = win().webContents;
  for (const url of ['https://evil.example/', 'file:///etc/passwd', 'app://varlab/index.html']) {
    assert.equal(wc.fire('will-navigate', url), true, url);
    assert.equal(wc.fire('will-redirect', url), true, url);
  }
  assert.equal(prefs().navigateOnDragDrop, false);
  assert.deepEqual(wc.windowOpenHandler!({ url: 'https://evil.example/' }), { action: 'deny' });
});

test('15. shell.openExternal is not used with any content', () => {
  for (const f of ['electron/main.ts', 'electron/preload.ts', 'electron/secrets.ts']) {
    const code = readFileSync(f, 'utf8');
    assert.doesNotMatch(code, /openExternal\s*\(/, f);
    assert.doesNotMatch(code, /import\s*\{[^}]*\bshell\b[^}]*\}\s*from\s*'electron'/, f);
  }
});

test('16. a current Electron: the major version this checklist was checked against, or newer', () => {
  const declared = JSON.parse(readFileSync('package.json', 'utf8')).devDependencies.electron as string;
  assert.ok(Number(/\d+/.exec(declared)![0]) >= 45, declared);
});

test('17. IPC: only our own page in the top frame may call, and only methods of the API contract', async () => {
  assert.equal((await invoke('app.info', {})).ok, true);
  for (const url of ['https://evil.example/', 'app://varlab.evil.example/index.html', 'file:///index.html']) {
    const r = await invoke('app.info', {}, { url });
    assert.deepEqual([r.ok, r.code], [false, 'invalid-argument'], url);
  }
  const sub = await invoke('app.info', {}, { url: 'app://varlab/index.html', main: false });
  assert.match(sub.message!, /untrusted frame/);
  assert.match((await invoke('shell.exec', { cmd: 'id' })).message!, /unknown method/);
});

test('20. no Electron API reaches the page: the preload exposes one invoke and one on, allow-listed', async () => {
  assert.deepEqual([...rec.exposed.keys()], ['varlab']);
  const api = rec.exposed.get('varlab') as Record<string, (...a: unknown[]) => unknown>;
  assert.deepEqual(Object.keys(api).sort(), ['invoke', 'on']);
  // An unknown method never reaches IPC; a known one does, on the one channel.
  const refused = (await api.invoke('shell.exec', {})) as { ok: boolean; code: string };
  assert.deepEqual([refused.ok, refused.code], [false, 'invalid-argument']);
  assert.equal(rec.ipcRenderer.invoked.length, 0);
  await api.invoke('app.info', {});
  assert.deepEqual(rec.ipcRenderer.invoked, [['varlab:invoke', 'app.info', {}]]);
  // Events: only allow-listed names, and the listener gets the payload, never Electron's event object.
  assert.throws(() => api.on('anything', () => {}), /unknown event/);
  const got: unknown[][] = [];
  const off = api.on('prompt', (...args: unknown[]) => got.push(args)) as () => void;
  const [listener] = rec.ipcRenderer.listeners.get('varlab:event')!;
  listener({ sender: 'ipc-internals' }, 'prompt', { id: 'p1' });
  listener({ sender: 'ipc-internals' }, 'run.batch', { seq: 1 });
  assert.deepEqual(got, [[{ id: 'p1' }]]);
  off();
  assert.equal(rec.ipcRenderer.listeners.get('varlab:event')!.length, 0);
});

test('19. fuses: run-as-node, NODE_OPTIONS and --inspect off, cookie encryption on, ASAR integrity where packaged with ASAR', async () => {
  const off = fuseSettings(false);
  assert.equal(off.RunAsNode.on, false);
  assert.equal(off.EnableCookieEncryption.on, true);
  assert.equal(off.EnableNodeOptionsEnvironmentVariable.on, false);
  assert.equal(off.EnableNodeCliInspectArguments.on, false);
  assert.equal(off.GrantFileProtocolExtraPrivileges.on, false);
  assert.equal(off.OnlyLoadAppFromAsar.on, false);
  const asar = fuseSettings(true);
  assert.equal(asar.OnlyLoadAppFromAsar.on, true);
  assert.equal(asar.EnableEmbeddedAsarIntegrityValidation.on, true);
  // The script flips a binary's fuse wire: here a file holding the sentinel and Electron's default wire.
  const binary = join(dir, 'electron-binary');
  const defaults = '101100011'; // RunAsNode, NODE_OPTIONS, --inspect on; cookie encryption off; as Electron ships
  writeFileSync(binary, Buffer.concat([Buffer.alloc(1000, 7), Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'), Buffer.from([1, defaults.length]), Buffer.from(defaults), Buffer.alloc(1000, 7)]));
  await applyFuses(binary, true);
  const wire = await getCurrentFuseWire(binary);
  const on = (f: FuseV1Options) => wire[f] === FuseState.ENABLE;
  assert.equal(on(FuseV1Options.RunAsNode), false);
  assert.equal(on(FuseV1Options.EnableCookieEncryption), true);
  assert.equal(on(FuseV1Options.EnableNodeOptionsEnvironmentVariable), false);
  assert.equal(on(FuseV1Options.EnableNodeCliInspectArguments), false);
  assert.equal(on(FuseV1Options.EnableEmbeddedAsarIntegrityValidation), true);
  assert.equal(on(FuseV1Options.OnlyLoadAppFromAsar), true);
  assert.equal(on(FuseV1Options.GrantFileProtocolExtraPrivileges), false);
});

test('files: the desktop app reads and writes only what the user picked in a dialog, and never varlab\'s own state', async () => {
  const sql = join(dir, 'queries.sql');
  writeFileSync(sql, 'SELECT 1;');
  const secret = join(dir, 'not-picked.txt');
  writeFileSync(secret, 'private');
  // experiment.readSql read any file.
  const notPicked = await invoke('experiment.readSql', { path: secret });
  assert.deepEqual([notPicked.ok, notPicked.code], [false, 'path-refused']);
  assert.match(notPicked.message!, /was not chosen in a dialog/);
  nextDialogAnswer = sql;
  assert.equal((await invoke('dialog.open', { title: 'Import queries', extensions: ['sql'] })).value, sql);
  const picked = await invoke('experiment.readSql', { path: sql });
  assert.deepEqual(picked.value, { name: 'queries', sql: 'SELECT 1;' });
  // Picked to read is not picked to write.
  assert.equal((await invoke('export.writeFile', { path: join(dir, 'queries.json'), base64: 'e30=' })).code, 'path-refused');

  // export.writeFile wrote any absolute .json path, varlab's own server profiles included (bypassing consent).
  const profiles = join(home, 'profiles.json');
  nextDialogAnswer = profiles;
  await invoke('dialog.save', { suggested: 'x.json', extensions: ['json'] });
  const intoHome = await invoke('export.writeFile', { path: profiles, base64: Buffer.from('{"local":{}}').toString('base64') });
  assert.deepEqual([intoHome.ok, intoHome.code], [false, 'path-refused']);
  assert.match(intoHome.message!, /varlab's own settings/);
  assert.equal(existsSync(profiles), false);
  // …nor through a symlink in a picked folder.
  const exports = join(dir, 'exports');
  mkdirSync(exports);
  symlinkSync(home, join(exports, 'link'));
  nextDialogAnswer = exports;
  await invoke('dialog.open', { title: 'Export into folder', extensions: [], folder: true });
  assert.equal((await invoke('export.writeFile', { path: join(exports, 'link', 'consent.json'), base64: 'e30=' })).code, 'path-refused');
  const report = await invoke('export.writeFile', { path: join(exports, 'report.md'), base64: Buffer.from('# report').toString('base64') });
  assert.equal(report.ok, true, report.message);
  assert.equal(readFileSync(join(exports, 'report.md'), 'utf8'), '# report');
  // ~/.ssh is never read, even when picked.
  const sshKey = join(process.env.HOME ?? '/root', '.ssh', 'id_ed25519');
  nextDialogAnswer = sshKey;
  await invoke('dialog.open', { extensions: [] });
  assert.match((await invoke('experiment.readSql', { path: sshKey })).message!, /your SSH folder/);
  nextDialogAnswer = null;
});

test("files: a saved experiment's own export folder is writable without a dialog; another folder is not", async () => {
  const file = join(dir, 'aslr.varlab.json');
  nextDialogAnswer = file;
  await invoke('dialog.save', { suggested: 'aslr.varlab.json', extensions: ['varlab.json'] });
  const example = await invoke('experiment.example', { name: 'quickstart' });
  const saved = await invoke('experiment.save', { path: file, doc: (example.value as { doc: unknown }).doc });
  assert.equal(saved.ok, true, saved.message);
  const beside = await invoke('export.writeFile', { path: join(dir, 'aslr-export', 'report.md'), base64: 'IyByZXBvcnQ=' });
  assert.equal(beside.ok, true, beside.message);
  const elsewhere = await invoke('export.writeFile', { path: join(dir, 'other-export', 'report.md'), base64: 'IyByZXBvcnQ=' });
  assert.equal(elsewhere.code, 'path-refused');
  // The file is a recent file now: opened again without a dialog (the Open menu's recent list).
  const reopened = await invoke('experiment.open', { path: file });
  assert.equal(reopened.ok, true, reopened.message);
});
