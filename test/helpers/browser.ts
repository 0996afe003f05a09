import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * The machine's own Chromium (Debian's `chromium` package), driven by playwright-core: no browser is
 * downloaded. CHATPROBE_CHROMIUM names another binary. Without one, the browser tests are skipped with
 * that reason, unless CHATPROBE_REQUIRE_BROWSER is set (CI sets it), where they fail instead.
 */
export const CHROMIUM = [process.env.CHATPROBE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));

export const NO_BROWSER = !CHROMIUM && !process.env.CHATPROBE_REQUIRE_BROWSER;
if (NO_BROWSER) console.warn('report.html browser tests skipped: no Chromium (apt-get install chromium, or set CHATPROBE_CHROMIUM)');

// Headless, with nothing reaching for the network (the machine's network is closed anyway).
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no Chromium: apt-get install chromium, or set CHATPROBE_CHROMIUM (CHATPROBE_REQUIRE_BROWSER is set)');
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

export interface OpenedPage {
  page: Page;
  /** Console errors and warnings, uncaught errors, and every request that is not the file itself. */
  problems: string[];
}

/** Opens a local file in a new page, recording what went wrong and what it tried to fetch. */
export async function openFile(browser: Browser, path: string, hash = '', viewport = { width: 1400, height: 900 }): Promise<OpenedPage> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  const url = pathToFileURL(path).href;
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (r.url().split('#')[0] !== url) problems.push(`request: ${r.url()}`);
  });
  page.setDefaultTimeout(5000);
  await page.goto(url + hash);
  return { page, problems };
}
