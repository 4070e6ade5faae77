// The browser of the browser tests: Debian's chromium, driven by playwright-core, headless,
// as root (hence --no-sandbox), on a fresh profile that the test removes.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * --single-process: the pages, the network service and the browser in one process. Each
 * renderer chromium starts otherwise costs ~0.7 s of CPU (a page per test, and one per site),
 * and on the suite's two cores that CPU is the suite's wall time: pages.browser's chromium
 * took 20-22 s of CPU with a process per page and 11-13 s in one (Chromium 156).
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
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
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
