// Issue 36: the sandbox's demo keys are fixtures, not secrets, in the sandbox's own output.
// `sandbox serve` (its JSON line, its table and its "Try:" hint) and `sandbox keys` (every
// output mode) print them whole even when CARRENTAL_API_KEY holds one of them, as in a CI
// script that exported a key and starts a second sandbox. A key that is not the sandbox's
// own stays masked, in those outputs too.
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { sandboxKeys } from '../../src/sandbox/fixtures.js';
import { FakeOut, runCommand, TestHome } from '../helpers/cli.js';

let home: TestHome;
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const DEMO = sandboxKeys();
/** A key of a real account: not the sandbox's. */
const REAL = 'svc_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

/** `sandbox serve` in-process until its first lines, then stopped. */
async function serve(args: string[], env: NodeJS.ProcessEnv, tty = false) {
  const stdout = new FakeOut(tty);
  const stderr = new FakeOut(tty);
  const stdin = new PassThrough() as unknown as InStream;
  const controller = new AbortController();
  const done = runCli(['sandbox', 'serve', '--port', '0', '--state', join(home.dir, 'sb.json'), ...args], { io: { stdin, stdout, stderr }, env, signal: controller.signal });
  for (let i = 0; i < 400 && !(tty ? stderr.text().includes('Ctrl-C') : stdout.text().includes('\n')); i++) await new Promise((r) => setTimeout(r, 25));
  controller.abort();
  expect(await done).toBe(0);
  return { stdout: stdout.text(), stderr: stderr.text() };
}

describe.each(Object.keys(DEMO) as Array<keyof typeof DEMO>)('CARRENTAL_API_KEY is the demo key %s', (name) => {
  const env = () => home.env({ CARRENTAL_API_KEY: DEMO[name] });

  it('sandbox serve --json: the JSON line holds every demo key whole', async () => {
    const { stdout } = await serve(['--json'], env());
    const info = JSON.parse(stdout.split('\n')[0]) as { keys: Record<string, string> };
    expect(info.keys).toEqual(DEMO);
  });

  it('sandbox serve on a terminal: the keys and the "Try:" hint whole', async () => {
    const { stdout, stderr } = await serve([], env(), true);
    for (const key of Object.values(DEMO)) expect(stdout).toContain(key);
    expect(stderr).toMatch(new RegExp(`CARRENTAL_API_KEY=${DEMO.booking_write} carrental --base-url http://127\\.0\\.0\\.1:\\d+/v1 trips`));
    expect(stdout + stderr).not.toContain('…');
  });

  it.each([[[]], [['--json']], [['--jq', '.']], [['--jq', '.booking_write']]])('sandbox keys %j: whole', async (flags) => {
    const r = await runCommand(['sandbox', 'keys', ...flags], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    if (flags[1] === '.booking_write') expect(r.stdout.trim()).toBe(DEMO.booking_write);
    else for (const key of Object.values(DEMO)) expect(r.stdout).toContain(key);
    expect(r.stdout).not.toContain('…');
  });
});

describe('a key that is not the sandbox’s own', () => {
  it('stays masked, in the same outputs, while the demo keys print whole', async () => {
    // the sandbox's app token is the demo customer's; a real account's key is nobody's here
    const env = home.env({ CARRENTAL_API_KEY: REAL });
    const r = await runCommand(['sandbox', 'keys', '--json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject(DEMO);
    const { stdout } = await serve(['--json'], env);
    expect(JSON.parse(stdout.split('\n')[0]).keys).toEqual(DEMO);
  });

  it('the demo keys are not exempt elsewhere: a server echoing the active demo key gets it masked', async () => {
    // an error line naming the argument that holds the key (the command line is checked before anything runs)
    const r = await runCommand(['--sandbox', 'car', DEMO.booking_write.toUpperCase()], { env: home.env({ CARRENTAL_API_KEY: DEMO.booking_write }) });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain(DEMO.booking_write.slice(4, -4));
    expect(r.stderr.toLowerCase()).not.toContain(DEMO.booking_write.slice(4, -4));
  });
});
