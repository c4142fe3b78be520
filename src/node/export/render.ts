// Headless rendering of figures to PNG and SVG: Debian's Chromium (or CHROMIUM_PATH) driven by
// playwright-core opens the render page, which draws with the app's own Plotly bundle, so an image
// from the command line is the image the UI exports. When something is missing, the error says what
// and how to get it.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../common/api.js';
import type { FigureSpec } from '../../common/figures/figure.js';
import { publicDir, serveStatic } from './static.js';

export type ImageFormat = 'png' | 'svg';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
}

/** The same flags the end-to-end tests use: no GPU here, so WebGL (if a trace ever needs it) goes through SwiftShader. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu-sandbox',
  '--enable-unsafe-swiftshader',
  '--use-angle=swiftshader',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Chromium's own headless mode is a whole browser with a window: it preloads the address bar's
 * suggestion popup (chrome://omnibox-popup.top-chrome, a renderer of its own), which cost 1-2 s of CPU
 * of every export here, more than drawing most figures, and keeps a spare renderer ready for the next
 * site. Chromium takes the last --disable-features it is given, so this one repeats playwright-core's
 * own list (1.65) and adds the popup's features and the spare renderer.
 */
export const NO_BROWSER_UI_ARGS = [
  '--disable-features=' +
    [
      'AvoidUnnecessaryBeforeUnloadCheckSync',
      'DestroyProfileOnBrowserClose',
      'HttpsUpgrades',
      'HttpsFirstBalancedModeAutoEnable',
      'LensOverlay',
      'MediaRouter',
      'PaintHolding',
      'ThirdPartyStoragePartitioning',
      'AvoidCorsURLLoaderRestartOnRedirect',
      'TcpPortRandomizationWin',
      'OptimizationHints',
      'NetworkTimeServiceQuerying',
      'AimEnabled',
      'PreconnectToSearch',
      'WebUIOmniboxPopup',
      'WebUIOmniboxAimPopup',
      'WebUIOmniboxFullPopup',
      'SpareRendererForSitePerProcess',
    ].join(','),
];

/** For the render page only: no GPU process, and none of the browser's own UI. */
export const RENDER_ONLY_ARGS = ['--disable-gpu', ...NO_BROWSER_UI_ARGS];

/** What is missing for headless rendering, as a message a person can act on; null when nothing is. */
export function renderProblem(): string | null {
  const chromium = chromiumPath();
  if (!existsSync(chromium)) {
    return (
      `rendering plots needs headless Chromium, and ${chromium} does not exist` +
      (process.env.CHROMIUM_PATH ? ' (from CHROMIUM_PATH)' : '') +
      '. Install it (Debian or Ubuntu: `apt-get install chromium`) or set CHROMIUM_PATH to a Chromium or Chrome binary.'
    );
  }
  const page = join(publicDir(), 'dist', 'render.js');
  if (!existsSync(page)) return `the render page is not built (${page} is missing): run \`npm run build\` first.`;
  return null;
}

/** A data URL from Plotly.toImage (base64 PNG, or URI-encoded SVG) as the file's bytes. */
export function decodeDataUrl(url: string): Buffer {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) throw new Error(`not a data URL: ${url.slice(0, 40)}…`);
  const meta = url.slice(5, comma);
  const body = url.slice(comma + 1);
  return meta.endsWith(';base64') ? Buffer.from(body, 'base64') : Buffer.from(decodeURIComponent(body), 'utf8');
}

type Page = import('playwright-core').Page;

export interface Rendered {
  png?: Buffer;
  svg?: Buffer;
}

export interface Renderer {
  /**
   * Draw the figure once and take each image asked for from that one drawing: PNG at `png` scale, SVG.
   * Calls may overlap: they are spread over the render pages.
   */
  render(figure: FigureSpec, want: { png?: number; svg?: boolean }): Promise<Rendered>;
  close(): Promise<void>;
}

/** Start Chromium on the render page. Close it when done: it is a browser process. */
export async function openRenderer(): Promise<Renderer> {
  const problem = renderProblem();
  if (problem) throw new ApiError('unsupported', problem);
  let playwright: typeof import('playwright-core');
  try {
    playwright = await import('playwright-core');
  } catch {
    throw new ApiError('unsupported', 'rendering plots needs the npm package playwright-core: run `npm install playwright-core`.');
  }
  const server = await serveStatic(publicDir());
  let browser: import('playwright-core').Browser | undefined;
  try {
    // Figures are SVG, never WebGL: without a GPU process Chromium starts on about 1.5 s less CPU here.
    browser = await playwright.chromium.launch({ executablePath: chromiumPath(), headless: true, args: [...CHROMIUM_ARGS, ...RENDER_ONLY_ARGS] });
    const b = browser;
    const context = await b.newContext({ viewport: { width: 1600, height: 1200 } });
    // One render page per core (two at most): each page draws in its own renderer process.
    const openPage = async () => {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${server.url}/render.html`);
      await page.waitForFunction('document.body.dataset.ready === "true"', undefined, { timeout: 30_000 }).catch(() => {
        throw new ApiError('internal', `the render page did not start${errors.length ? `: ${errors.join('; ')}` : ''}`);
      });
      return page;
    };
    const free = await Promise.all(Array.from({ length: Math.min(2, Math.max(1, availableParallelism())) }, openPage));
    const waiting: ((page: Page) => void)[] = [];
    const release = (page: Page) => {
      const next = waiting.shift();
      if (next) next(page);
      else free.push(page);
    };
    return {
      async render(figure, want) {
        const page = free.pop() ?? (await new Promise<Page>((ok) => waiting.push(ok)));
        try {
          type Render = (f: unknown, w: unknown) => Promise<{ png?: string; svg?: string }>;
          const r = await page.evaluate(([f, w]) => (globalThis as unknown as { varlabRender: Render }).varlabRender(f, w), [figure, want] as const);
          return { png: r.png === undefined ? undefined : decodeDataUrl(r.png), svg: r.svg === undefined ? undefined : Buffer.from(r.svg, 'utf8') };
        } finally {
          release(page);
        }
      },
      async close() {
        await b.close();
        await server.close();
      },
    };
  } catch (e) {
    await browser?.close().catch(() => {});
    await server.close();
    if (e instanceof ApiError) throw e;
    throw new ApiError('unsupported', `headless Chromium (${chromiumPath()}) did not start: ${(e as Error).message.split('\n')[0]}`);
  }
}
