// `npm start`: build, then open the Electron window; when Electron cannot start here (no display,
// its binary cannot be downloaded, …) say why in one line and serve the same UI in browser mode.
// `npm run web` (--web) goes straight to browser mode. --port N picks the port, --no-build skips the build.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { onInterrupt } from '../src/node/shutdown.js';
import { startServer } from '../src/node/transport/websocket-server.js';

const argv = process.argv.slice(2);
const web = argv.includes('--web');
const portArg = argv.indexOf('--port');
const port = portArg >= 0 ? Number(argv[portArg + 1]) : 0;

if (!argv.includes('--no-build')) {
  const b = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}

/** Why Electron cannot start here, or null when it is worth trying. */
function electronBlocker(): string | null {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  try {
    createRequire(import.meta.url).resolve('electron/package.json');
  } catch {
    return 'the electron package is not installed';
  }
  return null;
}

/** Start Electron; resolve null once its window is up, or the reason it failed. */
function tryElectron(): Promise<string | null> {
  return new Promise((resolve) => {
    const bin = process.platform === 'win32' ? 'node_modules\\.bin\\electron.cmd' : 'node_modules/.bin/electron';
    if (!existsSync(bin)) return resolve('the electron launcher is missing from node_modules/.bin');
    const child = spawn(bin, ['.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let lastError = '';
    let up = false;
    child.stdout.on('data', (d: Buffer) => {
      const text = d.toString();
      if (!up && text.includes('varlab: window ready')) {
        up = true;
        resolve(null);
      }
      if (up) process.stdout.write(text);
    });
    child.stderr.on('data', (d: Buffer) => {
      const lines = d.toString().trim().split('\n').filter(Boolean);
      if (lines.length) lastError = lines[lines.length - 1];
      if (up) process.stderr.write(d);
    });
    child.on('error', (e) => !up && resolve(e.message));
    child.on('exit', (code) => {
      if (!up) resolve(`electron exited with code ${code}${lastError ? `: ${lastError.slice(0, 200)}` : ''}`);
      else process.exit(code ?? 0);
    });
    process.on('SIGINT', () => child.kill('SIGTERM'));
  });
}

async function browserMode() {
  const server = await startServer({ port });
  console.log(`varlab is running in browser mode: open ${server.url}`);
  console.log('(the address carries a one-time token; press Ctrl-C to stop)');
  // Ctrl-C or SIGTERM: every run is cancelled and its host restored (bounded) before leaving.
  onInterrupt(
    async (signal) => {
      console.log(`varlab: ${signal}: stopping; cancelling any run and restoring its host (Ctrl-C again to leave at once)…`);
      const said = await server.close();
      console.log(`varlab: ${said}`);
      process.exit(0);
    },
    () => {
      console.log('varlab: interrupted twice: leaving now; a run may have left mysqld running (varlab offers to restore the host when it next connects there)');
      process.exit(130);
    },
  );
}

if (web) {
  await browserMode();
} else {
  const reason = electronBlocker() ?? (await tryElectron());
  if (reason) {
    console.log(`varlab: Electron cannot start here (${reason}); serving the same UI in browser mode instead.`);
    await browserMode();
  }
}
