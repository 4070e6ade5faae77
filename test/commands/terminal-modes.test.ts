// At the terminal, in-process against a loopback sandbox: an AI agent on a pseudo-terminal
// gets what a pipe gets; long output goes through a pager (never in a pipe, in CI, for an
// agent or with --no-pager); progress lines are cut to the terminal's width, or written as
// lines of their own when the width is unknown or in the accessible mode.
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { agentName, AGENT_VARIABLES } from '../../src/cmdkit/agent.js';
import { runCli } from '../../src/cli/main.js';
import { pagerCommand } from '../../src/cmdkit/pager.js';
import { PassThrough } from 'node:stream';
import type { InStream } from '../../src/session/context.js';
import { FakeOut, runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { fakeOutput } from '../helpers/output.js';
import { TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;

beforeAll(async () => {
  sb = await TestSandbox.start();
});
afterAll(() => sb.close());
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const run = (argv: string[], opts: RunOpts = {}) =>
  runCommand(['--base-url', sb.baseUrl, ...argv], { sleep: async () => {}, ...opts, env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, ...opts.env }) });

/** A run whose stdout is a terminal `rows` lines tall (FakeOut has no height of its own). */
async function runTall(argv: string[], rows: number, env: NodeJS.ProcessEnv) {
  const stdout = Object.assign(new FakeOut(true), { rows });
  const stderr = new FakeOut(true);
  const stdin = new PassThrough() as unknown as InStream;
  stdin.isTTY = true;
  const code = await runCli(['--base-url', sb.baseUrl, ...argv], {
    io: { stdin, stdout, stderr },
    env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1', ...env }),
    sleep: async () => {},
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('run by an AI agent', () => {
  it('is detected by the variables gh and the Stripe CLI read; CARRENTAL_AGENT forces or refuses it', () => {
    expect(agentName({})).toBeUndefined();
    expect(agentName({ CLAUDECODE: '1' })).toBe('Claude Code');
    expect(agentName({ AI_AGENT: 'my-bot' })).toBe('any agent that names itself');
    expect(agentName({ AGENT: 'goose' })).toBeUndefined();
    expect(agentName({ AGENT: 'amp' })).toBe('Amp');
    expect(agentName({ CURSOR_TRACE_ID: 'x' })).toBeUndefined();
    expect(agentName({ CLAUDECODE: '1', CARRENTAL_AGENT: '0' })).toBeUndefined();
    expect(agentName({ CARRENTAL_AGENT: '1' })).toBe('CARRENTAL_AGENT');
    for (const [variable, , value] of AGENT_VARIABLES) expect(agentName({ [variable]: value ?? '1' }), variable).toBeDefined();
  });

  it('on a pseudo-terminal gets what a pipe gets: tab-separated lines, no colour, no progress', async () => {
    const piped = await run(['trips']);
    const agent = await run(['trips'], { tty: true, stdinTty: true, env: { CLAUDECODE: '1', FORCE_COLOR: undefined } });
    expect(agent.code).toBe(0);
    expect(agent.stdout).toBe(piped.stdout);
    expect(agent.stdout).toContain('\t');
    expect(agent.stdout + agent.stderr).not.toContain('\u001b');
    // a person at the same terminal gets the table
    const person = await run(['trips'], { tty: true, stdinTty: true, env: { NO_COLOR: '1' } });
    expect(person.stdout).toMatch(/^UUID +CAR/m);
  });

  it('is never prompted: a reserve without -y is a usage error before anything is sent (exit 2)', async () => {
    const r = await run(['reserve', 'toyota-camry-1001', '--from', '2026-12-01 10:00', '--days', '3'], { tty: true, stdinTty: true, env: { GEMINI_CLI: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pass -y/);
  });
});

describe('the pager', () => {
  it('CARRENTAL_PAGER, then PAGER, then less -FRX; empty or cat is none', () => {
    expect(pagerCommand({})).toBe('less -FRX');
    expect(pagerCommand({ PAGER: 'more' })).toBe('more');
    expect(pagerCommand({ PAGER: 'more', CARRENTAL_PAGER: 'most -s' })).toBe('most -s');
    expect(pagerCommand({ CARRENTAL_PAGER: '' , PAGER: 'more'})).toBeUndefined();
    expect(pagerCommand({ PAGER: 'cat' })).toBeUndefined();
  });

  const PAGER = { CARRENTAL_PAGER: "sed 's/^/paged: /'" };

  it('takes output taller than the screen on a terminal, messages in their place', async () => {
    const r = await runTall(['cars', '--limit', '30'], 20, PAGER);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(31);
    for (const line of lines) expect(line).toMatch(/^paged: /);
    expect(lines[0]).toMatch(/^paged: ALIAS +NAME/);
    // the pagination hint (stderr) comes through the pager after the table, as it would read on the screen
    expect(lines.at(-1)).toMatch(/^paged: showing 1-30 of \d+/);
  });

  it('leaves output that fits the screen alone, and is never used with --no-pager, CI or an agent', async () => {
    const short = await runTall(['cars', '--limit', '3'], 20, PAGER);
    expect(short.stdout).toMatch(/^ALIAS +NAME/);
    expect(short.stderr).toMatch(/^showing 1-3 of/m);
    for (const [args, env] of [
      [['--no-pager'], {}],
      [[], { CI: 'true' }],
      [[], { CODEX_SANDBOX: 'seatbelt' }],
    ] as const) {
      const r = await runTall([...args, 'cars', '--limit', '30'], 20, { ...PAGER, ...env });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('paged:');
    }
  });

  it('a pager that cannot start is skipped: the output is shown as is', async () => {
    const r = await runTall(['cars', '--limit', '30'], 20, { CARRENTAL_PAGER: 'no-such-pager-carrental' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ALIAS +NAME/);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(31);
  });
});

describe('progress lines', () => {
  const long = `waiting for rent: ${'x'.repeat(200)} (Ctrl-C to stop)`;

  it('are cut to the terminal width, one column short, so a redraw erases the whole line', () => {
    const o = fakeOutput({ tty: true });
    o.stderrStream.columns = 60;
    o.out.progress(long);
    const written = o.stderr();
    expect(written.startsWith('\r\u001b[2K')).toBe(true);
    const shown = written.slice('\r\u001b[2K'.length);
    expect(shown.length).toBe(59);
    expect(shown.endsWith('…')).toBe(true);
  });

  it('are lines of their own when the width is unknown or in the accessible mode; a repeated one is not written again', () => {
    const unknown = fakeOutput({ tty: true });
    unknown.stderrStream.columns = undefined as unknown as number;
    unknown.out.progress('fetched 1 of 3 cars');
    unknown.out.progress('fetched 1 of 3 cars');
    unknown.out.progress('fetched 2 of 3 cars');
    unknown.out.clearProgress();
    expect(unknown.stderr()).toBe('fetched 1 of 3 cars\nfetched 2 of 3 cars\n');
    expect(unknown.out.redraws).toBe(false);
    const accessible = fakeOutput({ tty: true, accessible: true });
    accessible.out.progress(long);
    expect(accessible.stderr()).toBe(`${long}\n`);
    expect(accessible.out.redraws).toBe(false);
  });
});
