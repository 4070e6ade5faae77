// The in-process `carrental` the example runs put on PATH (test/helpers/inprocess-shim.ts)
// answers a shell line as the built CLI does: the same exit code, stdout and stderr, the
// command's own environment, working directory and stdin, and nothing left behind for the
// next line but files. The comparison with the built CLI is why this file is `.e2e.`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShimDir } from '../helpers/bin.js';
import { TestHome } from '../helpers/cli.js';
import { InProcessCli } from '../helpers/inprocess-shim.js';

let cli: InProcessCli;
let built: ShimDir;
const homes: TestHome[] = [];

beforeAll(async () => {
  cli = await InProcessCli.start();
  built = new ShimDir();
});
afterAll(async () => {
  await cli.close();
  built.cleanup();
  for (const h of homes) h.cleanup();
});

/** A fresh home with the sandbox's clock at a fixed instant, as an example session's. */
function session(extra: NodeJS.ProcessEnv = {}) {
  const home = new TestHome();
  homes.push(home);
  return { home, env: home.env({ CARRENTAL_SANDBOX: '1', CARRENTAL_SANDBOX_NOW: '2027-03-10T18:00:00Z', LANG: 'C.UTF-8', ...extra }) };
}

/** One line in bash, `carrental` being the in-process one or the built CLI. */
function bash(line: string, s: { home: TestHome; env: NodeJS.ProcessEnv }, how: 'in-process' | 'built') {
  const PATH = how === 'built' ? built.path() : cli.path();
  return new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((resolve, reject) => {
    const started = Date.now();
    const script = how === 'built' ? line : `${cli.prelude()}\n${line}`;
    const child = spawn('bash', ['--noprofile', '--norc', '-o', 'pipefail', '-c', script], { env: { ...s.env, PATH }, cwd: s.home.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

describe('a line answered in-process', () => {
  // each pair on fresh homes at the same sandbox clock: what differs is how carrental ran
  it.each([
    'carrental --sandbox car toyota-camry-1001',
    'carrental --sandbox car no-such-car --json',
    'carrental cars --limit 1000000000',
    'carrental --sandbox cars --city la --limit 3 --json car_alias,nmae',
    'carrental --sandbox quote toyota-camry-1001 --from "+10d 10:00" --days 3',
    'carrental --sandbox reserve toyota-camry-1001 --from "+10d 10:00" --days 3 </dev/null',
    `echo '{"car_alias":' | carrental --sandbox api POST /reservation/quote --body -`,
    'carrental --sandbox trips | cut -f1,9',
    'carrental config path',
    'carrental nonsense --city la',
  ])('prints what the built CLI prints, with its exit code: %s', async (line) => {
    const inProcess = await bash(line, session(), 'in-process');
    const spawned = await bash(line, session(), 'built');
    // the homes differ: each output names its own; a sandbox's request ids count on in one
    // process (where a spawned CLI's count from 1 in each)
    const own = (r: typeof inProcess, home: string) =>
      `${r.stdout}\n--- stderr\n${r.stderr}`.replaceAll(home, '<home>').replace(/\breq_[0-9a-f]{24}\b/g, 'req_<id>');
    expect({ code: inProcess.code, text: own(inProcess, homes.at(-2)!.dir) }).toEqual({ code: spawned.code, text: own(spawned, homes.at(-1)!.dir) });
  });

  it('runs in this worker: a line costs no Node start, and `carrental` as a program (env, xargs) is the same', async () => {
    const before = cli.answered;
    const r = await bash('carrental --sandbox car toyota-camry-1001 >/dev/null && env carrental help exit-codes | head -1 && echo exit-codes | xargs carrental help >/dev/null', session(), 'in-process');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\S/);
    expect(cli.answered).toBe(before + 3);
  });

  it('leaves nothing in the line\'s shell: no variable, no trap', async () => {
    const r = await bash(`carrental help exit-codes >/dev/null; set | grep -c '^__cr_' ; trap -p`, session(), 'in-process');
    expect(r.stdout.trim()).toBe('0');
  });

  it('reads its own environment, as the code that reads process.env sees it, and the next line does not', async () => {
    const s = session();
    const r = await bash(
      `CARRENTAL_SANDBOX_NOW=2031-05-05T12:00:00Z carrental --sandbox sandbox clock show --jq .now; carrental --sandbox sandbox clock show --jq .now`,
      s,
      'in-process',
    );
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = r.stdout.trim().split('\n');
    // the embedded sandbox reads CARRENTAL_SANDBOX_NOW from process.env (startSandbox)
    expect(first).toMatch(/^2031-05-05T12:0/);
    expect(second).toMatch(/^2027-03-10T18:0/);
    expect(process.env.CARRENTAL_SANDBOX_NOW).toBeUndefined();
  });

  it('resolves a relative path against the shell working directory, and gives the worker its own back', async () => {
    const s = session();
    mkdirSync(join(s.home.dir, 'sub'));
    const cwd = process.cwd();
    const r = await bash('cd sub && carrental --sandbox doctor --contract --junit report.xml > /dev/null', s, 'in-process');
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(s.home.dir, 'sub', 'report.xml'))).toBe(true);
    expect(process.cwd()).toBe(cwd);
  });

  it('keeps stdout and stderr apart, and a reader that leaves early is no failure of carrental', async () => {
    const s = session();
    const err = await bash('carrental --sandbox car no-such-car 2>/dev/null', s, 'in-process');
    expect(err).toMatchObject({ code: 4, stdout: '', stderr: '' });
    const head = await bash('carrental completion bash | head -1', s, 'in-process');
    expect(head.code).toBe(0);
    expect(head.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('lets a wait pass at once: a watch that gives up after 6 s ends in a moment, exit 6', async () => {
    const s = session();
    const uuid = (await bash(`carrental --sandbox trips --jq '.active[0].uuid'`, s, 'in-process')).stdout.trim();
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    const r = await bash(`carrental --sandbox trips ${uuid} --watch --watch-timeout 6`, s, 'in-process');
    expect(r.code, r.stderr).toBe(6);
    expect(r.ms).toBeLessThan(5_000);
  });

  it('interrupts a line that runs until Ctrl-C once it printed, when asked: a server stops and leaves no listener', async () => {
    const s = session();
    const listeners = process.listenerCount('SIGTERM');
    cli.interruptOnOutput = true;
    try {
      const r = await bash('carrental sandbox serve --port 0 --json', s, 'in-process');
      expect([0, 130], r.stderr).toContain(r.code);
      expect(r.stdout).toMatch(/"base_url":"http:\/\/127\.0\.0\.1:\d+\//);
    } finally {
      cli.interruptOnOutput = false;
    }
    expect(process.listenerCount('SIGTERM')).toBe(listeners);
  });

  it('interrupts a command that outlives its time, as Ctrl-C would (exit 130)', async () => {
    const s = session();
    const uuid = (await cli.run({ argv: ['--sandbox', 'trips', '--jq', '.active[0].uuid'], env: s.env, cwd: s.home.dir })).stdout.trim();
    const r = await cli.run({ argv: ['--sandbox', 'trips', uuid, '--watch'], env: s.env, cwd: s.home.dir, timeoutMs: 500 });
    expect(r.code).toBe(130);
  });
});
