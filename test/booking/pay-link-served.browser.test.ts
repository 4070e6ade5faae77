// The embedded sandbox's pay link in a real browser, when the stable port is held by a
// program that is not a carrental sandbox: the link points at the command's own port (with
// a warning), and after --wait sees the payment the done page and its "View the trip" link
// are still served during the grace period. In-process: the injected sleep makes the 5 s
// reads quick and holds the grace open until the browser is done, so the order is fixed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, requireChromium } from '../helpers/chromium.js';
import { LINK_GRACE_MS } from '../../src/session/embedded-sandbox.js';
import { TestHome, runCommand } from '../helpers/cli.js';
import { futureTrip, runLive } from './served-links.js';

let foreign: Server;
let foreignPort: number;
let home: TestHome;
let chrome: Awaited<ReturnType<typeof launchChromium>> | undefined;

beforeAll(async () => {
  requireChromium();
  foreign = createServer((_req, res) => res.end('someone else'));
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  foreignPort = (foreign.address() as AddressInfo).port;
  home = new TestHome();
});

afterAll(async () => {
  await chrome?.close();
  await new Promise((resolve) => foreign?.close(resolve));
  home?.cleanup();
});

it('stable port held by another program: the link points at a port this command serves; done page and "View the trip" load during the grace', async () => {
  const env = home.env({ CARRENTAL_SANDBOX_PORT: String(foreignPort), NO_COLOR: '1' });
  const uuid = await futureTrip(env);

  let graceStarted!: () => void;
  const inGrace = new Promise<'grace'>((resolve) => (graceStarted = () => resolve('grace')));
  let releaseGrace!: () => void;
  const graceReleased = new Promise<void>((resolve) => (releaseGrace = resolve));
  const sleep = async (ms: number) => {
    if (ms === LINK_GRACE_MS) {
      graceStarted();
      await graceReleased;
    } else await new Promise((r) => setTimeout(r, 100));
  };
  const { stdout, stderr, done: running } = runLive(['--sandbox', 'pay-link', uuid, '--wait'], { env, sleep });
  const ended = running.then(() => 'ended' as const);
  try {
    const deadline = Date.now() + 15_000;
    while (!stdout.text().includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const url = stdout.text().split('\n')[0];
    const port = Number(new URL(url).port);
    expect(port).not.toBe(foreignPort);
    expect(stderr.text()).toContain(`warning: port ${foreignPort} is taken by a program that is not a carrental sandbox, so this link points at port ${port}`);

    chrome = await launchChromium();
    const page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    await page.goto(url);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Pay the rent' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: /^Pay \$/ }).click();
    await page.getByRole('heading', { name: 'Payment complete' }).waitFor({ timeout: 10_000 });

    // the done page says it closes with the command, and when
    await expect(page.getByTestId('served-until').innerText()).resolves.toBe(
      `This page is served by the command that gave you the link (carrental --sandbox pay-link ${uuid} --wait). It closes when that command stops: ${LINK_GRACE_MS / 1000} s after it sees the payment (sooner on Ctrl-C or at its --wait-timeout); afterwards, carrental --sandbox trips ${uuid} shows the trip.`,
    );
    // the command has seen the payment and still serves: the grace period, not the exit
    expect(await Promise.race([inGrace, ended])).toBe('grace');
    await page.getByRole('link', { name: 'View the trip' }).click();
    await page.waitForURL(new RegExp(`/app/trips/${uuid}$`));
    await expect(page.locator('main').innerText()).resolves.toMatch(/Paid|settled|PAID/i);
    expect(stderr.text()).toContain(`the page and its done page stay served on port ${port} for ${LINK_GRACE_MS / 1000} s more`);
  } finally {
    releaseGrace();
  }
  expect(await running, stderr.text()).toBe(0);
  expect(stderr.text()).toContain(`settled: reservation ${uuid} has nothing left to pay`);
  // and the page is gone with the command, as it said
  const after = await runCommand(['--sandbox', '--json', 'trips', uuid], { env });
  expect(JSON.parse(after.stdout).payment_status).toEqual({ type: 'settled' });
}, 90_000);
