// `pay-link --wait` against the sandbox, in-process: the injected sleep stands in for the
// 5 s between reads and, on its second call, the customer pays through the sandbox's admin
// helper (what the pay page does). The wait ends with exit 0 and `trips` reads settled.
import { expect } from 'vitest';
import { FROM, TO, admin, freeCars, requests, test as bookingTest } from './sandbox.js';

const test = bookingTest
  /** Reserves the nth free car (0: the cheapest) and returns the reservation's uuid. */
  .extend('reserveOne', async ({ sb, cli }) => async (nth = 0): Promise<string> => {
    const alias = (await freeCars(sb, nth + 1))[nth];
    const reserved = await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y']);
    expect(reserved.code, reserved.stderr).toBe(0);
    return reserved.stdout.trim();
  })
  /** Runs `pay-link <uuid> [args] --wait`, doing `pays[n]` (rent or deposit) during the n-th sleep. */
  .extend('waitWithPayments', async ({ sb, cli }) => async (uuid: string, args: string[], pays: Record<number, 'rent' | 'deposit'>) => {
    const sleeps: number[] = [];
    const res = await cli(['pay-link', uuid, ...args, '--wait', '--wait-timeout', '60'], {
      sleep: async (ms) => {
        sleeps.push(ms);
        const type = pays[sleeps.length];
        if (type) await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: type });
      },
    });
    return { ...res, sleeps };
  });

test('waits, the customer pays, --wait exits 0 and trips shows settled', async ({ sb, alias, cli }) => {
  const reserved = await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y']);
  expect(reserved.code, reserved.stderr).toBe(0);
  const uuid = reserved.stdout.trim();
  await admin(sb, 'DELETE', '/requests');

  const sleeps: number[] = [];
  const res = await cli(['pay-link', uuid, '--wait'], {
    sleep: async (ms) => {
      sleeps.push(ms);
      if (sleeps.length === 2) await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
    },
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

test('nothing_to_pay once settled: exit 5 with a plain explanation', async ({ sb, alias, cli }) => {
  const uuid = (await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y'])).stdout.trim();
  await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
  const res = await cli(['pay-link', uuid]);
  expect(res.code).toBe(5);
  expect(res.stderr).toContain(`nothing to pay: reservation ${uuid} has no unpaid rent invoice`);
});

test('--type deposit --wait with the rent already paid waits for the deposit hold, not for settled', async ({ sb, reserveOne, waitWithPayments }) => {
  const uuid = await reserveOne();
  await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
  const res = await waitWithPayments(uuid, ['--type', 'deposit'], { 3: 'deposit' });
  expect(res.code, res.stderr).toBe(0);
  // reads after sleeps 1 and 2 see the deposit still ISSUED; the read after sleep 3 sees the HOLD
  expect(res.sleeps).toEqual([5000, 5000, 5000]);
  expect(res.stderr).toContain(`deposit authorised: reservation ${uuid}: the deposit is authorised (a hold on the card, not a charge)`);
  expect(res.stderr).not.toContain('has nothing left to pay');
  expect(res.stderr).toContain('this command waits until the deposit is authorised (held) or paid');
});

test('--type deposit --wait with both due: paying the rent does not end it, the deposit does; the rent state is said', async ({ reserveOne, waitWithPayments }) => {
  const uuid = await reserveOne();
  const res = await waitWithPayments(uuid, ['--type', 'deposit'], { 1: 'rent', 3: 'deposit' });
  expect(res.code, res.stderr).toBe(0);
  expect(res.sleeps).toHaveLength(3);
  expect(res.stderr).toContain(`deposit authorised: reservation ${uuid}`);
});

test('--type deposit --wait: the rent still owed at the end is named with the command that pays it', async ({ reserveOne, waitWithPayments }) => {
  const uuid = await reserveOne();
  const res = await waitWithPayments(uuid, ['--type', 'deposit'], { 1: 'deposit' });
  expect(res.code, res.stderr).toBe(0);
  expect(res.sleeps).toHaveLength(1);
  expect(res.stderr).toMatch(new RegExp(`deposit authorised: reservation ${uuid}: .*; rent is still owed, to pay: \\$[\\d,.]+.*pay-link ${uuid}\``));
});

test('--wait (rent) with both due: paying the deposit does not end it; settled says the deposit is still due when it is', async ({ reserveOne, waitWithPayments }) => {
  const uuid = await reserveOne();
  const deposit = await waitWithPayments(uuid, [], { 1: 'deposit', 2: 'rent' });
  expect(deposit.code, deposit.stderr).toBe(0);
  expect(deposit.sleeps).toHaveLength(2);
  expect(deposit.stderr).toContain(`settled: reservation ${uuid} has nothing left to pay`);
  expect(deposit.stderr).not.toContain('deposit is still due');

  const other = await reserveOne(1);
  const rentOnly = await waitWithPayments(other, ['--type', 'rent'], { 1: 'rent' });
  expect(rentOnly.code, rentOnly.stderr).toBe(0);
  expect(rentOnly.stderr).toContain(`settled: reservation ${other} has nothing left to pay; the deposit is still due (\`carrental pay-link ${other} --type deposit\`)`);
});

test('--wait-timeout ends an unpaid deposit wait with exit 6, saying what it last saw', async ({ sb, cli, reserveOne }) => {
  const uuid = await reserveOne();
  await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
  const res = await cli(['pay-link', uuid, '--type', 'deposit', '--wait', '--wait-timeout', '10']);
  expect(res.code).toBe(6);
  expect(res.stderr).toContain('deposit not authorised after 10 s of waiting: the deposit is still due');
});
