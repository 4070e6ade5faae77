// A request slower than half a second shows a spinner on stderr, on a terminal only, and
// it is erased before the command's own output.
import { describe, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);
const cars = (tty: boolean) => runCommand(['--base-url', sb.baseUrl, 'cars', '--city', 'la', '--limit', '2'], { env: home.env({ NO_COLOR: '1' }), tty });

describe('spinner', () => {
  it('a slow request on a terminal: frames on stderr, erased at the end', async () => {
    await sb.fault({ kind: 'latency', operation: 'listCars', ms: 900 });
    const r = await cars(true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\r\u001b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for GET \/cars/);
    // the spinner's line is erased before anything else is written
    const lastFrame = r.stderr.lastIndexOf('waiting for GET /cars') + 'waiting for GET /cars'.length;
    expect(r.stderr.slice(lastFrame)).toMatch(/^\r\u001b\[2Kshowing 1-2 of \d+/);
    expect(r.stderr.replace(/\r\u001b\[2K(?:[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for GET \/cars)?/g, '')).toMatch(/^showing 1-2 of \d+; next page/);
    expect(r.stdout).not.toContain('waiting');
  });

  it('a fast request shows none', async () => {
    const r = await cars(true);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('waiting for');
  });

  it('in a pipe, a slow request shows none', async () => {
    await sb.fault({ kind: 'latency', operation: 'listCars', ms: 900 });
    const r = await cars(false);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
