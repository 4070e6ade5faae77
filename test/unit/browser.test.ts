// --open hands only web pages to a browser: a link is typed as any RFC 3986 URI, and a
// server could answer with a file: or custom-scheme link that the platform opener would
// pass to some other program.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isWebUrl, openUrl } from '../../src/cmdkit/browser.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('openUrl', () => {
  it('knows a web address', () => {
    expect(isWebUrl('https://app.example/trips/1?intent=pay')).toBe(true);
    expect(isWebUrl('HTTP://127.0.0.1:4780/app/billing/cards')).toBe(true);
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'ms-settings:', 'ftp://x/y', 'https://a b', '']) {
      expect(isWebUrl(bad)).toBe(false);
    }
  });

  it('never starts the browser for anything but http(s)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'carrental-browser-'));
    const log = join(dir, 'opened');
    const script = join(dir, 'browser.sh');
    writeFileSync(script, `#!/bin/sh\necho "$1" >> ${log}\n`);
    chmodSync(script, 0o755);
    const env = { BROWSER: script, PATH: process.env.PATH };
    const refused = await openUrl('file:///etc/passwd', { env });
    expect(refused).toEqual({ opened: false, reason: expect.stringContaining('not an http(s) address') });
    const ok = await openUrl('https://app.example/x', { env });
    expect(ok.opened).toBe(true);
    // The browser runs detached and on its own time: the shell creates the log (the
    // redirection) before echo writes it, so wait for the whole line, not for the file.
    const opened = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
    await expect.poll(opened, { timeout: 10_000, interval: 20 }).toBe('https://app.example/x\n');
  });
});
