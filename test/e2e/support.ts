// End-to-end helpers: a browser-mode server with its own varlab home, and Debian's Chromium
// driven by playwright-core (never a downloaded browser).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startServer, type BrowserModeServer } from '../../src/node/transport/websocket-server.js';
import { CHROMIUM_ARGS, NO_BROWSER_UI_ARGS, chromiumPath } from '../../src/node/export/render.js';
import { startRunEnv, type RunEnv } from '../integration/run-env.js';

export interface TestApp extends BrowserModeServer {
  /** A temporary VARLAB_HOME (recent files, profiles), removed by stop(). */
  home: string;
  /** A temporary folder for files the test saves. */
  dir: string;
  stop(): Promise<void>;
}

export async function startApp(): Promise<TestApp> {
  const home = mkdtempSync(join(tmpdir(), 'varlab-home-'));
  const dir = mkdtempSync(join(tmpdir(), 'varlab-files-'));
  process.env.VARLAB_HOME = home;
  const server = await startServer();
  return {
    ...server,
    home,
    dir,
    async stop() {
      await server.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Chromium with the same binary and flags as the command line's headless export, and WebGL (through
 * SwiftShader: the Run view's timeline and the Analysis view's dots draw with it). The page's layers are
 * composited in software: with SwiftShader compositing every frame, the GPU process took 10-12 s of CPU
 * of a live run's journey (run-stop-live), a quarter of the file; WebGL is the same either way.
 */
export const TEST_BROWSER_ARGS: readonly string[] = [...CHROMIUM_ARGS, ...NO_BROWSER_UI_ARGS, '--disable-gpu-compositing'];

export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: [...TEST_BROWSER_ARGS, ...extraArgs] });
}

/** Open the app in a new page and wait until it has rendered; CSP violations and page errors fail the test. */
export async function openApp(browser: Browser, app: Pick<TestApp, 'url'>, viewport = { width: 1400, height: 900 }, beforeGoto?: (page: Page) => Promise<void>): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await beforeGoto?.(page);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) problems.push(`CSP: ${m.text()}`);
  });
  (page as Page & { problems: string[] }).problems = problems;
  await page.goto(app.url);
  await page.waitForSelector('#root > *');
  return page;
}

/** Errors the page reported (uncaught exceptions, CSP refusals): a test asserts this is empty. */
export function pageProblems(page: Page): string[] {
  return (page as Page & { problems?: string[] }).problems ?? [];
}

/** The app and a browser for every test of a file: started before the first, stopped after the last. */
export function appForTests(): { readonly app: TestApp; readonly browser: Browser; open(): Promise<Page> } {
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
  });
  return {
    get app() {
      return app!;
    },
    get browser() {
      return browser!;
    },
    open: () => openApp(browser!, app!),
  };
}

/**
 * A sandbox mariadbd (behind the test sshd) that is the app's own profile for `local`, the app and a
 * browser, for every test of a file. After the last test a run still going (a failed assertion leaves
 * it) is cancelled, so its mysqld is stopped, before the app and the sandbox are.
 */
export function runAppForTests(): { readonly env: RunEnv; readonly app: TestApp; readonly browser: Browser } {
  let env: RunEnv | undefined;
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  before(async () => {
    env = await startRunEnv();
    app = await startApp();
    // The sandbox is the user's own profile for `local` in the app's home: no consent needed for it, nothing else touched.
    const registry = JSON.parse(readFileSync(join(env.varlabHome, 'profiles.json'), 'utf8'));
    writeFileSync(join(app.home, 'profiles.json'), JSON.stringify({ local: registry[env.sshd.target] }, null, 2));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    if (app) {
      for (let i = 0; i < 600; i++) {
        const st = await app.backend.call('run.status', {});
        const active = st.ok ? st.value.filter((r) => r.state === 'running' || r.state === 'paused') : [];
        if (!active.length) break;
        for (const r of active) await app.backend.call('run.cancel', { runId: r.runId });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await app?.stop();
    await env?.stop();
  });
  return {
    get env() {
      return env!;
    },
    get app() {
      return app!;
    },
    get browser() {
      return browser!;
    },
  };
}

/** A varlab home of its own for a browser-mode process (startWebServer), with the sandbox registered for the sshd's target. */
export function homeWithSandbox(env: RunEnv, name: string): string {
  const home = join(env.dir, name);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'profiles.json'), readFileSync(join(env.varlabHome, 'profiles.json')));
  return home;
}

/** In the Run view of the open file: the sandbox sshd's key and known_hosts, "Keep running when this computer sleeps", Run. */
export async function pressRunDetached(page: Page, env: RunEnv): Promise<void> {
  await page.getByTestId('nav-run').click();
  await page.getByLabel('key file').fill(env.sshd.keyFile);
  await page.getByLabel('known_hosts').fill(env.sshd.knownHostsFile);
  await page.getByTestId('run-detach').check();
  await page.getByTestId('run-start-button').click();
}

/** Open the quickstart from the welcome screen and wait for the designer's grid. */
export async function openQuickstart(page: Page): Promise<void> {
  await page.getByTestId('open-quickstart').click();
  await page.getByTestId('cell-count').waitFor();
}

/** Open a file by its path in the open dialog, as a user types it; waits until the dialog has closed. */
export async function openFile(page: Page, file: string): Promise<void> {
  await page.getByTestId('open').click();
  await page.getByTestId('open-path').fill(file);
  await page.getByTestId('open-path-submit').click();
  await page.getByTestId('open-dialog').waitFor({ state: 'detached' });
}

/**
 * Wait until `expression` (page code as text) is true in the page, evaluating it again every 100 ms.
 * Not page.waitForFunction: once its check has to be retried it evaluates the text with eval-like
 * machinery, which the app's Content Security Policy (no 'unsafe-eval') refuses, so it only passes
 * when the check is already true the first time. page.evaluate is not held to the page's CSP.
 */
export async function waitInPage(page: Page, expression: string, what: string, timeout = 30_000): Promise<void> {
  const until = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > until) throw new Error(`waited ${timeout} ms for ${what}: \`${expression}\` is still false`);
    await page.waitForTimeout(100);
  }
}

/**
 * Wait for what a run shows when it gets somewhere (finished, a look…); on a timeout, the error also says
 * what the Run view showed then (its state, counts, log, why it ended). A run that never finished in CI
 * (two copies of the suite on one machine, 2026-11-27) could not be told from a slow one: this says which.
 */
export async function waitForRun(page: Page, what: Locator, timeout: number): Promise<void> {
  try {
    await what.waitFor({ timeout });
  } catch (e) {
    const shown = await page.getByTestId('run-view').innerText({ timeout: 10_000 }).catch(() => '(no run view)');
    throw new Error(`${(e as Error).message}\nthe Run view showed:\n${shown.slice(0, 3000)}`);
  }
}

/** Drop a file onto the window, as a user dragging it from a file manager. Page code as text: no DOM types here. */
export async function dropFile(page: Page, name: string, text: string): Promise<void> {
  await page.evaluate(`(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)}, { type: 'application/json' }));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  })()`);
}

/** `npm run web` as a user starts it: its own process (scripts/start.ts --web, built already) with a varlab home. */
export interface WebServer {
  url: string;
  process: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Its exit code once it ends. */
  exited: Promise<number | null>;
  /** Send a signal (Ctrl-C is SIGINT) and wait until it has ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startWebServer(home: string): Promise<WebServer> {
  const server = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--web', '--no-build'], { env: { ...process.env, VARLAB_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  server.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  server.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<number | null>((r) => server.on('exit', (code) => r(code)));
  // It prints its address once it listens; a server that ended first says why in its output.
  for (let i = 0; i < 600 && !/open (http:\S+)/.test(out) && server.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
  const url = /open (http:\S+)/.exec(out)?.[1];
  if (!url) {
    server.kill('SIGKILL');
    throw new Error(`browser mode did not start:\n${out}`);
  }
  return {
    url,
    process: server,
    output: () => out,
    exited,
    async stop(signal = 'SIGINT') {
      if (server.exitCode === null && server.signalCode === null) server.kill(signal);
      return exited;
    },
  };
}
