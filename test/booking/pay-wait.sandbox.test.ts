// `pay-link --wait` against the sandbox, in-process: the injected sleep stands in for the
// 5 s between reads and, on its second call, the customer pays through the sandbox's admin
// helper (what the pay page does). The wait ends with exit 0 and `trips` reads settled.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { FROM, SANDBOX_NOW, TO, admin, freeCars, requests, resetSandbox } from './sandbox.js';

let sb: RunningSandbox;
let home: TestHome;

beforeAll(async () => {
  sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true });
});
afterAll(async () => {
  await sb.close();
});
beforeEach(async () => {
  await resetSandbox(sb);
  home = new TestHome();
});
afterEach(() => home.cleanup());

const cli = (args: string[], sleep: (ms: number) => Promise<void> = async () => {}) =>
  runCommand(['--base-url', sb.baseUrl, ...args], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }), sleep });

it('waits, the customer pays, --wait exits 0 and trips shows settled', async () => {
  const [alias] = await freeCars(sb, 1);
  const reserved = await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y']);
  expect(reserved.code, reserved.stderr).toBe(0);
  const uuid = reserved.stdout.trim();
  await admin(sb, 'DELETE', '/requests');

  const sleeps: number[] = [];
  const res = await cli(['pay-link', uuid, '--wait'], async (ms) => {
    sleeps.push(ms);
    if (sleeps.length === 2) await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
  });
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout.split('\n')[0]).toBe(`${sb.appUrl}/trips/${uuid}?intent=pay&payment_type=reservation&agent_flow_id=${res.stdout.match(/agent_flow_id=([0-9a-f-]{36})/)![1]}`);
  expect(res.stderr).toContain(`settled: reservation ${uuid}`);
  expect(sleeps).toEqual([5000, 5000]);
  const reads = await requests(sb, 'getReservation');
  expect(reads).toHaveLength(2);
  const [link] = await requests(sb, 'paymentLink');
  expect(link.status).toBe(200);

  const trip = await cli(['trips', uuid, '--json']);
  expect(JSON.parse(trip.stdout).payment_status).toEqual({ type: 'settled' });
});

it('nothing_to_pay once settled: exit 5 with a plain explanation', async () => {
  const [alias] = await freeCars(sb, 1);
  const uuid = (await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y'])).stdout.trim();
  await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
  const res = await cli(['pay-link', uuid]);
  expect(res.code).toBe(5);
  expect(res.stderr).toContain(`nothing to pay: reservation ${uuid} has no unpaid rent invoice`);
});
