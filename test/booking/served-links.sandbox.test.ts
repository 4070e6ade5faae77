// Which port the embedded sandbox's links point at, and how long that port serves them,
// in-process: the stable port free, held by this state file's own `sandbox serve`, by a
// sandbox on another state file, by a program that is not a sandbox, or none configured.
// After `pay-link --wait` sees the payment, its own server keeps serving during the grace.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LINK_GRACE_MS } from '../../src/session/embedded-sandbox.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { TestHome, runCommand } from '../helpers/cli.js';
import { futureTrip, runLive } from './served-links.js';

let home: TestHome;
const closers: Array<() => Promise<unknown>> = [];

beforeEach(() => {
  home = new TestHome();
});
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  home.cleanup();
});

async function foreignServer(): Promise<number> {
  const server: Server = createServer((_req, res) => res.end('someone else'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

async function serve(statePath?: string): Promise<RunningSandbox> {
  const sb = await startSandbox({ statePath, quiet: true });
  closers.push(() => sb.close());
  return sb;
}

const portOf = (url: string) => Number(new URL(url).port);
const linkOf = (stdout: string) => stdout.split('\n')[0];

/** Whether anything answers HTTP on the port (a refused connection: false). */
async function answers(url: string): Promise<number | false> {
  try {
    return (await fetch(url, { redirect: 'manual' })).status;
  } catch {
    return false;
  }
}

describe('the stable port is free', () => {
  it('the command serves the links on it; --wait says it serves them while it waits and for the grace', async () => {
    const probe = await foreignServer();
    await closers.pop()!(); // a port that was free a moment ago
    const env = home.env({ CARRENTAL_SANDBOX_PORT: String(probe) });
    const uuid = await futureTrip(env);
    const card = await runCommand(['--sandbox', 'card-link'], { env });
    expect(card.code, card.stderr).toBe(0);
    expect(portOf(linkOf(card.stdout))).toBe(probe);
    expect(card.stderr).toContain(`only while a carrental sandbox runs on port ${probe}: keep \`carrental sandbox serve\` running`);
    expect(card.stderr).not.toContain('warning:');
    expect(card.stderr).not.toContain('--wait');
    const extend = await runCommand(['--sandbox', 'extend-link', uuid], { env });
    expect(extend.code, extend.stderr).toBe(0);
    expect(extend.stderr).toContain(`only while a carrental sandbox runs on port ${probe}`);
    expect(extend.stderr).not.toContain('--wait');
    const pay = await runCommand(['--sandbox', 'pay-link', uuid], { env });
    expect(pay.stderr).toContain('running in another terminal (or use --wait) before opening it');

    const run = runLive(['--sandbox', 'pay-link', uuid, '--wait'], {
      env,
      sleep: async (ms) => {
        if (ms !== LINK_GRACE_MS) await fetch(`http://127.0.0.1:${probe}/__sandbox/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reservation_uuid: uuid, payment_type: 'rent' }) });
      },
    });
    expect(await run.done, run.stderr.text()).toBe(0);
    expect(portOf(linkOf(run.stdout.text()))).toBe(probe);
    expect(run.stderr.text()).toContain(`This command serves the page on port ${probe} while it waits, and ${LINK_GRACE_MS / 1000} s after it sees the payment.`);
    expect(run.stderr.text()).toContain(`stay served on port ${probe} for ${LINK_GRACE_MS / 1000} s more`);
  });
});

describe('a carrental sandbox on this state file holds the stable port', () => {
  it('links point at it, and --wait has no grace of its own (that server stays)', async () => {
    const env = home.env();
    const shared = await serve(env.CARRENTAL_SANDBOX_STATE);
    const stable = portOf(shared.baseUrl);
    const withPort = { ...env, CARRENTAL_SANDBOX_PORT: String(stable) };
    const uuid = await futureTrip(withPort);
    const sleeps: number[] = [];
    const res = await runCommand(['--sandbox', 'pay-link', uuid, '--wait'], {
      env: withPort,
      sleep: async (ms) => {
        sleeps.push(ms);
        if (sleeps.length === 1) await fetch(`${shared.adminUrl}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reservation_uuid: uuid, payment_type: 'rent' }) });
      },
    });
    expect(res.code, res.stderr).toBe(0);
    expect(portOf(linkOf(res.stdout))).toBe(stable);
    expect(res.stderr).toContain(`The carrental sandbox on port ${stable} (same state file) serves this page for as long as it runs.`);
    expect(res.stderr).not.toContain('warning:');
    expect(sleeps).toEqual([5000]);
    // the page is really there: the shared server answers the link (the login redirect)
    expect(await answers(linkOf(res.stdout))).toBe(303);
  });
});

describe('something else holds the stable port', () => {
  it('a program that is not a sandbox: the link points at the command port, with a warning that it dies with the command', async () => {
    const foreign = await foreignServer();
    const env = home.env({ CARRENTAL_SANDBOX_PORT: String(foreign) });
    const res = await runCommand(['--sandbox', 'card-link'], { env });
    expect(res.code, res.stderr).toBe(0);
    const port = portOf(linkOf(res.stdout));
    expect(port).not.toBe(foreign);
    expect(res.stderr).toContain(
      `warning: port ${foreign} is taken by a program that is not a carrental sandbox, so this link points at port ${port}: this command serves it only until it exits, which is now: free port ${foreign} (or set CARRENTAL_SANDBOX_PORT to a free port), run \`carrental sandbox serve\` in another terminal and ask for the link again.`,
    );
    // card-link has no --wait: its notes never suggest one
    expect(res.stderr).not.toContain('--wait');
  });

  it('a carrental sandbox on another state file: its pages would not know this reservation, so the link points elsewhere', async () => {
    const other = await serve(join(home.dir, 'other-state.json'));
    const stable = portOf(other.baseUrl);
    const env = home.env({ CARRENTAL_SANDBOX_PORT: String(stable) });
    const uuid = await futureTrip(env);
    const res = await runCommand(['--sandbox', 'pay-link', uuid], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(portOf(linkOf(res.stdout))).not.toBe(stable);
    expect(res.stderr).toContain(`warning: port ${stable} is taken by a carrental sandbox with another state file (${join(home.dir, 'other-state.json')})`);
    expect(res.stderr).toContain('this command serves it only until it exits, which is now: use --wait to keep it served, or free port');
  });
});

describe('no stable port (CARRENTAL_SANDBOX_PORT=0)', () => {
  it('without --wait the note says the link dies with the command', async () => {
    const res = await runCommand(['--sandbox', 'card-link'], { env: home.env() });
    expect(res.code, res.stderr).toBe(0);
    const port = portOf(linkOf(res.stdout));
    expect(res.stderr).toContain(
      `This link points at port ${port}: this command serves it only until it exits, which is now: set CARRENTAL_SANDBOX_PORT to a free port, run \`carrental sandbox serve\` in another terminal and ask for the link again.`,
    );
    expect(res.stderr).not.toContain('--wait');
    expect(await answers(linkOf(res.stdout))).toBe(false);
  });

  it('--wait: after the payment the page is still served during the grace, then closes', async () => {
    const env = home.env();
    const uuid = await futureTrip(env);
    const sleeps: number[] = [];
    const served: Array<number | false> = [];
    const run = runLive(['--sandbox', 'pay-link', uuid, '--wait'], {
      env,
      sleep: async (ms) => {
        sleeps.push(ms);
        const link = linkOf(run.stdout.text());
        // the customer pays on the command's own server (what the page's Pay button does)
        if (sleeps.length === 1) await fetch(`${new URL(link).origin}/__sandbox/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reservation_uuid: uuid, payment_type: 'rent' }) });
        if (ms === LINK_GRACE_MS) served.push(await answers(link));
      },
    });
    expect(await run.done, run.stderr.text()).toBe(0);
    const link = linkOf(run.stdout.text());
    const port = portOf(link);
    expect(run.stderr.text()).toContain(`This link points at port ${port}: this command serves it while it waits, and ${LINK_GRACE_MS / 1000} s after it sees the payment.`);
    expect(sleeps).toEqual([5000, LINK_GRACE_MS]);
    expect(served).toEqual([303]);
    expect(run.stderr.text()).toContain(`the page and its done page stay served on port ${port} for ${LINK_GRACE_MS / 1000} s more, then this command exits and they close`);
    expect(await answers(link)).toBe(false);
  });
});
