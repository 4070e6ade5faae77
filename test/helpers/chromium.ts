// The browser of the browser tests: Chromium's headless shell (Debian's
// chromium-headless-shell, the build playwright itself runs for headless Chromium), driven by
// playwright-core, as root (hence --no-sandbox), on a fresh profile that the test removes.
//
// Why the shell and not /usr/bin/chromium --headless: the full browser in its headless mode
// stays busy while a page sits still (its renderer thread ~11% of a core on a static page,
// the shell ~0%), and the three browser files' chromium took 20.0-21.2 s of CPU with it and
// 7.4-8.5 s with the shell (Chromium 156, Node 20.20.2, the files alone on an idle two-core
// machine, two runs and four; every test passing both ways). On the suite's two cores that
// CPU is wall time. The pages, their forms, cookies, Content-Security-Policy and navigation
// are the same Blink, V8 and network stack in both.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium-headless-shell';

/**
 * --single-process: the pages, the network service and the browser in one process. Each
 * renderer chromium starts otherwise costs ~0.7 s of CPU (a page per test, and one per site),
 * and on the suite's two cores that CPU is the suite's wall time: pages.browser's chromium
 * took 20-22 s of CPU with a process per page and 11-13 s in one (Chromium 156, the full
 * browser); with the shell, the three browser files' chromium took 12.0-12.3 s with a
 * process per page and 7.4-8.5 s in one.
 * Nothing the tests look at depends on the process model: the pages, their forms, cookies,
 * Content-Security-Policy and navigation are Blink's and the network stack's alike.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--single-process',
  '--no-zygote',
];

/** Fails at once, naming the package, where the machine has no chromium (a test calls it before its own work). */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium-headless-shell`);
}

/** A headless chromium on a profile of its own; close() closes it and removes the profile. */
export async function launchChromium(): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  requireChromium();
  const profileDir = mkdtempSync(join(tmpdir(), 'carrental-chromium-'));
  const browser = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
