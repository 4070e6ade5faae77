// The whole payment handoff with a real browser: reserve, start `pay-link --wait` (the built
// CLI) in the background, open its link in headless Chromium, log in as the demo customer
// and pay on the sandbox's page; the waiting CLI sees `settled` and exits 0, and `trips`
// reads settled. Needs Debian's chromium-headless-shell and `npm run build`.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, requireChromium } from '../helpers/chromium.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN } from '../helpers/bin.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { FROM, SANDBOX_NOW, TO, freeCars } from './sandbox.js';

let sb: RunningSandbox;
let home: TestHome;
let chrome: Awaited<ReturnType<typeof launchChromium>> | undefined;

beforeAll(async () => {
  assertBuilt();
  requireChromium();
  sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true });
  home = new TestHome();
});

afterAll(async () => {
  await chrome?.close();
  await sb?.close();
  home?.cleanup();
});

it('pay-link --wait exits 0 once the customer paid in the browser; trips reads settled', async () => {
  const env = home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1' });
  const [alias] = await freeCars(sb, 1);
  const reserved = await runCommand(['--base-url', sb.baseUrl, 'reserve', alias, '--from', FROM, '--to', TO, '-y'], { env, now: () => SANDBOX_NOW });
  expect(reserved.code, reserved.stderr).toBe(0);
  const uuid = reserved.stdout.trim();

  const waiter = spawn(process.execPath, [BIN, '--base-url', sb.baseUrl, 'pay-link', uuid, '--wait', '--wait-timeout', '90'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  waiter.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  waiter.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => waiter.on('close', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 15_000;
    while (!stdout.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const url = stdout.split('\n')[0];
    expect(url).toMatch(new RegExp(`^${sb.appUrl}/trips/${uuid}\\?intent=pay&payment_type=reservation&agent_flow_id=[0-9a-f-]{36}$`));

    chrome = await launchChromium();
    const page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    await page.goto(url);
    // not logged in: the link leads through the demo login (Dana is preselected) and back
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForLoadState();
    const refusal = (await page.title()).startsWith('Refused') ? await page.locator('main').innerText() : '';
    expect(refusal, 'the sandbox refused the demo login form sent by the browser').toBe('');
    await page.getByRole('heading', { name: 'Pay the rent' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: /^Pay \$/ }).click();
    await page.getByRole('heading', { name: 'Payment complete' }).waitFor({ timeout: 10_000 });
    await expect(page.getByTestId('result').textContent()).resolves.toMatch(/was charged to .*4242 for the rent/);

    expect(await exited, stderr).toBe(0);
    expect(stderr).toContain(`settled: reservation ${uuid} has nothing left to pay`);
  } finally {
    if (waiter.exitCode === null) waiter.kill('SIGKILL');
  }

  const trip = await runCommand(['--base-url', sb.baseUrl, 'trips', uuid], { env });
  expect(trip.code, trip.stderr).toBe(0);
  expect(trip.stdout).toMatch(/settled/);
  const json = await runCommand(['--base-url', sb.baseUrl, '--json', 'trips', uuid], { env });
  expect(JSON.parse(json.stdout).payment_status).toEqual({ type: 'settled' });
}, 90_000);
