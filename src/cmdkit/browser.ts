// Opens an action link in the user's browser. `$BROWSER` wins (and lets tests record the
// call); otherwise the `open` package picks the platform opener. Where there is no
// browser (a headless Linux box, CI), nothing is opened and the caller only prints.
import { spawn } from 'node:child_process';
import type { Context } from '../session/context.js';

export type OpenResult = { opened: true; via: string } | { opened: false; reason: string };

function headless(env: NodeJS.ProcessEnv): boolean {
  return process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY;
}

function waitForSpawn(child: ReturnType<typeof spawn>): Promise<string | undefined> {
  return new Promise((resolve) => {
    // the 'spawn' event may already have fired when the child is handed to us
    const timer = setTimeout(() => resolve(undefined), 300);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve(err.message);
    });
    child.once('spawn', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/**
 * Only web pages are opened. Link schemas accept any RFC 3986 URI (the spec types `url` as
 * a URI), but a `file:`, `javascript:` or custom-scheme link from a server must not reach
 * the platform opener, which would hand it to whatever program claims that scheme.
 */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(url);
}

export async function openUrl(url: string, ctx: Pick<Context, 'env'>): Promise<OpenResult> {
  if (!isWebUrl(url)) return { opened: false, reason: 'the link is not an http(s) address, so it is not opened' };
  const browser = ctx.env.BROWSER?.trim();
  if (browser) {
    // $BROWSER may hold arguments ("firefox --new-tab"); the URL is one separate argument, never through a shell
    const [cmd, ...args] = browser.split(/\s+/);
    const child = spawn(cmd, [...args, url], { stdio: 'ignore', detached: true, env: ctx.env });
    const failed = await waitForSpawn(child);
    if (failed) return { opened: false, reason: `$BROWSER (${cmd}) could not start: ${failed}` };
    child.unref();
    return { opened: true, via: cmd };
  }
  if (headless(ctx.env)) return { opened: false, reason: 'no graphical session (DISPLAY is not set) and no $BROWSER' };
  try {
    const { default: open } = await import('open');
    const child = await open(url, { wait: false });
    const failed = await waitForSpawn(child as unknown as ReturnType<typeof spawn>);
    if (failed) return { opened: false, reason: `could not start a browser: ${failed}` };
    child.unref();
    return { opened: true, via: 'default browser' };
  } catch (err) {
    return { opened: false, reason: `could not start a browser: ${(err as Error).message}` };
  }
}
