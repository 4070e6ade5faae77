// The MCP booking tools on the shared booking core: every state a result claims is what
// get_trip reads at that moment (new, replayed, resumed after an unknown outcome, cancelled
// since), and nothing is written without a confirmation the server issued for exactly that
// request and total.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Api } from '../../src/api/endpoints.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { Journal } from '../../src/store/journal.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { FROM, SANDBOX_NOW, TO, admin, faults, freeCars, requests, reservations, resetSandbox } from '../booking/sandbox.js';
import { errorOf, serve, structured, type Session } from './in-process.js';

let sb: RunningSandbox;
let home: TestHome;
let alias: string;
let s: Session | undefined;

beforeAll(async () => {
  sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true });
});
afterAll(async () => {
  await sb.close();
});
beforeEach(async () => {
  await resetSandbox(sb);
  home = new TestHome();
  [alias] = await freeCars(sb, 1);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.stop();
  s = undefined;
  home.cleanup();
});

const trip = (extra: Record<string, unknown> = {}) => ({ car_alias: alias, date_checkin: FROM, date_checkout: TO, ...extra });
const unfinished = async () => (await new Journal({ path: join(home.dir, 'state', 'journal.json') }).list()).filter((e) => e.state === 'pending');

async function quoted(session: Session, extra: Record<string, unknown> = {}): Promise<string> {
  const q = await session.call('quote', trip(extra));
  expect(q.isError, JSON.stringify(q.content)).toBeFalsy();
  return structured(q).confirmation as string;
}

/** What get_trip says now. */
async function tripStatus(session: Session, uuid: string): Promise<string> {
  const r = await session.call('get_trip', { reservation_uuid: uuid });
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return structured(r).status as string;
}

describe('every state a booking result claims is what get_trip reads', () => {
  it('new: a reserve with its confirmation books once, status new', async () => {
    s = await serve(sb, home);
    const r = await s.call('reserve', trip({ confirmation: await quoted(s) }));
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(structured(r)).toMatchObject({ status: 'new', replayed: false });
    expect(await tripStatus(s, structured(r).reservation_uuid)).toBe('new');
    expect(await reservations(sb, alias)).toHaveLength(1);
  });

  it('replayed: the same confirmation again answers the same reservation, never a second', async () => {
    s = await serve(sb, home);
    const confirmation = await quoted(s);
    const first = await s.call('reserve', trip({ confirmation }));
    const again = await s.call('reserve', trip({ confirmation }));
    expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
    expect(structured(again)).toMatchObject({ reservation_uuid: structured(first).reservation_uuid, status: 'new', replayed: true });
    expect(await tripStatus(s, structured(again).reservation_uuid)).toBe('new');
    expect(await reservations(sb, alias)).toHaveLength(1);
  });

  it('replayed after the journal forgot it: the server replays the key, and the status is read back', async () => {
    s = await serve(sb, home, { env: { CARRENTAL_REPLAY_WINDOW: '0' } });
    const confirmation = await quoted(s);
    const first = await s.call('reserve', trip({ confirmation }));
    const uuid = structured(first).reservation_uuid;
    const again = await s.call('reserve', trip({ confirmation }));
    expect(structured(again)).toMatchObject({ reservation_uuid: uuid, status: 'new' });
    expect(await reservations(sb, alias)).toHaveLength(1);
  });

  it('cancelled since: the same reserve again says it was cancelled and how to book anew, as the CLI does; nothing is booked', async () => {
    s = await serve(sb, home);
    const confirmation = await quoted(s);
    const first = await s.call('reserve', trip({ confirmation }));
    const uuid = structured(first).reservation_uuid as string;
    const read = await s.call('get_trip', { reservation_uuid: uuid });
    const cancel = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation: structured(read).cancel_confirmation });
    expect(cancel.isError, JSON.stringify(cancel.content)).toBeFalsy();
    expect(structured(cancel).status).toBe(await tripStatus(s, uuid));

    const again = await s.call('reserve', trip({ confirmation }));
    expect(again.isError).toBe(true);
    expect(errorOf(again)).toMatchObject({ kind: 'conflict', reservation_uuid: uuid, status: 'cancelled' });
    expect(errorOf(again).message).toMatch(new RegExp(`^reservation ${uuid}, booked by an identical reserve .* ago, has been cancelled since: nothing new was booked$`));
    expect(errorOf(again).next_step).toMatch(/^to book this car again, call quote again/);
    expect(await tripStatus(s, uuid)).toBe('cancelled');
    expect(await reservations(sb, alias, 'new')).toHaveLength(0);

    // a new quote's confirmation with book_another books anew
    const anew = await s.call('reserve', trip({ confirmation: await quoted(s), book_another: true }));
    expect(anew.isError, JSON.stringify(anew.content)).toBeFalsy();
    expect(structured(anew).reservation_uuid).not.toBe(uuid);
    expect(await tripStatus(s, structured(anew).reservation_uuid)).toBe('new');
  });

  it('resumed after an unknown outcome: the same call finishes it with the same key, one reservation, status new', async () => {
    s = await serve(sb, home);
    const confirmation = await quoted(s);
    await faults(sb, { kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    const failed = await s.call('reserve', trip({ confirmation }));
    expect(failed.isError).toBe(true);
    const [entry] = await unfinished();
    expect(errorOf(failed).next_step).toBe(
      `the outcome is unknown; call reserve again with the same arguments and confirmation: it reuses idempotency key ${entry.key}, so it cannot book twice`,
    );
    const again = await s.call('reserve', trip({ confirmation }));
    expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
    expect(structured(again)).toMatchObject({ status: 'new', replayed: true });
    expect(await tripStatus(s, structured(again).reservation_uuid)).toBe('new');
    expect(await reservations(sb, alias)).toHaveLength(1);
    expect(new Set((await requests(sb, 'createReservation')).map((q) => q.idempotency_key))).toEqual(new Set([entry.key]));
  });

  it('an unknown outcome, then another confirmation of the same request: the pending attempt is finished with its own key, not booked a second time', async () => {
    s = await serve(sb, home);
    const first = await quoted(s);
    const second = await quoted(s);
    await faults(sb, { kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    expect((await s.call('reserve', trip({ confirmation: first }))).isError).toBe(true);
    const [entry] = await unfinished();
    const r = await s.call('reserve', trip({ confirmation: second }));
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(await reservations(sb, alias)).toHaveLength(1);
    expect((await requests(sb, 'createReservation')).every((q) => q.idempotency_key === entry.key)).toBe(true);
  });
});

describe('one booking core, one journal, for both front ends', () => {
  it('a tool call whose outcome is unknown is finished by `carrental reserve` with its key; the tool then replays that booking', async () => {
    // both front ends on the sandbox's clock: one journal, one replay window
    s = await serve(sb, home, { now: () => SANDBOX_NOW });
    const confirmation = await quoted(s);
    await faults(sb, { kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    expect((await s.call('reserve', trip({ confirmation }))).isError).toBe(true);
    const [entry] = await unfinished();

    const cli = await runCommand(['--base-url', sb.baseUrl, 'reserve', alias, '--from', FROM, '--to', TO, '-y'], {
      env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }),
      now: () => SANDBOX_NOW,
      sleep: async () => {},
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain(`with the same idempotency key (${entry.key})`);
    const uuid = cli.stdout.trim();

    const again = await s.call('reserve', trip({ confirmation }));
    expect(structured(again)).toMatchObject({ reservation_uuid: uuid, status: 'new', replayed: true });
    expect(await reservations(sb, alias)).toHaveLength(1);
    expect(new Set((await requests(sb, 'createReservation')).map((q) => q.idempotency_key))).toEqual(new Set([entry.key]));
  });
});

describe('reserve writes only what was confirmed', () => {
  it('without a confirmation, from a host that cannot ask the customer, nothing is sent', async () => {
    s = await serve(sb, home);
    const r = await s.call('reserve', trip());
    expect(r.isError).toBe(true);
    expect(errorOf(r)).toMatchObject({ message: 'reserve needs a confirmation: nothing was booked' });
    expect(errorOf(r).next_step).toMatch(/^call quote with the same arguments, show the customer/);
    expect(await requests(sb, 'createReservation')).toEqual([]);
  });

  it('an altered or made-up confirmation books nothing and says to quote again', async () => {
    s = await serve(sb, home);
    const real = await quoted(s);
    const [payload, mac] = real.split('.');
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const cheaper = Buffer.from(JSON.stringify({ ...decoded, t: 1 })).toString('base64url');
    for (const forged of [`${cheaper}.${mac}`, 'x.y', `${payload}.${mac.slice(0, -2)}AA`]) {
      const r = await s.call('reserve', trip({ confirmation: forged }));
      expect(r.isError).toBe(true);
      expect(errorOf(r).message).toBe('this confirmation is not one this server issued (or it was altered): nothing was sent');
      expect(errorOf(r).next_step).toMatch(/^call quote again/);
    }
    expect(await requests(sb, 'createReservation')).toEqual([]);
  });

  it('a confirmation for another request (other dates, options, extras or promo) books nothing', async () => {
    s = await serve(sb, home);
    const forOther = await quoted(s, { options: { protection_plan: 'standard' } });
    const r = await s.call('reserve', trip({ confirmation: forOther }));
    expect(r.isError).toBe(true);
    expect(errorOf(r).message).toBe('this confirmation was issued for another request (car, dates, options, extras or promo differ): nothing was sent');
    expect(await requests(sb, 'createReservation')).toEqual([]);
  });

  it('an expired confirmation books nothing', async () => {
    let now = Date.now();
    s = await serve(sb, home, { now: () => new Date(now) });
    const confirmation = await quoted(s);
    now += 16 * 60_000;
    const r = await s.call('reserve', trip({ confirmation }));
    expect(r.isError).toBe(true);
    expect(errorOf(r).message).toBe('this confirmation expired (they last 15 minutes): nothing was booked');
    expect(await requests(sb, 'createReservation')).toEqual([]);
  });

  it('a price changed since the quote books nothing and says to show the customer the new total', async () => {
    s = await serve(sb, home);
    const confirmation = await quoted(s);
    const original = Api.prototype.quote;
    vi.spyOn(Api.prototype, 'quote').mockImplementation(async function (this: Api, ...args: Parameters<Api['quote']>) {
      const res = await original.apply(this, args);
      return { ...res, data: { ...res.data, final_total: res.data.final_total + 500 } };
    });
    const r = await s.call('reserve', trip({ confirmation }));
    expect(r.isError).toBe(true);
    expect(errorOf(r)).toMatchObject({ kind: 'conflict', message: 'the price changed since the quote the customer agreed to: nothing was booked' });
    expect(errorOf(r).final_total).toBe(errorOf(r).confirmed_total + 500);
    expect(errorOf(r).next_step).toContain('show the customer the new total');
    expect(await requests(sb, 'createReservation')).toEqual([]);
  });

  it('the confirmation is keyed by a 0600 secret of the install, not the API key, and a read-only server issues none', async () => {
    s = await serve(sb, home);
    const confirmation = await quoted(s);
    const file = join(home.dir, 'config', 'confirmation-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(confirmation).not.toContain(sb.keys.booking_write);
    await s.stop();
    s = await serve(sb, home, { argv: [] });
    const q = await s.call('quote', trip());
    expect(structured(q).confirmation).toBeUndefined();
    const list = await s.call('list_trips', {});
    const uuid = structured(list).active[0]?.uuid;
    if (uuid) expect(structured(await s.call('get_trip', { reservation_uuid: uuid })).cancel_confirmation).toBeUndefined();
  });
});

describe('a host with elicitation: the server asks the customer itself', () => {
  it('reserve without a confirmation shows car, dates, total and deposit; a yes books (once), a no books nothing', async () => {
    const forms: Array<{ message: string; requestedSchema: any }> = [];
    let yes = false;
    s = await serve(sb, home, {
      elicit: (p) => {
        forms.push(p as never);
        return { action: 'accept', content: { [Object.keys((p.requestedSchema as { properties: object }).properties)[0]]: yes } };
      },
    });
    const q = structured(await s.call('quote', trip()));

    const no = await s.call('reserve', trip());
    expect(no.isError, JSON.stringify(no.content)).toBeFalsy();
    expect(structured(no)).toMatchObject({ sent: false, confirmed_by: 'elicitation', customer_answer: 'decline' });
    expect(await requests(sb, 'createReservation')).toEqual([]);
    expect(forms[0].message).toContain(`from ${FROM.replace('T', ' ')} to ${TO.replace('T', ' ')} America/Los_Angeles`);
    expect(forms[0].message).toContain(`Reserve for $${(q.final_total / 100).toFixed(2)}, plus a $${(q.deposit_cents / 100).toFixed(2)} refundable deposit: `);
    expect(forms[0].requestedSchema).toMatchObject({ properties: { reserve: { type: 'boolean' } }, required: ['reserve'] });

    yes = true;
    const booked = await s.call('reserve', trip());
    expect(structured(booked)).toMatchObject({ status: 'new', confirmed_by: 'elicitation', replayed: false });
    expect(await tripStatus(s, structured(booked).reservation_uuid)).toBe('new');
    expect(await reservations(sb, alias)).toHaveLength(1);

    // cancel_reservation without a cancel_confirmation asks too
    const before = forms.length;
    const cancelled = await s.call('cancel_reservation', { reservation_uuid: structured(booked).reservation_uuid });
    expect(forms.length).toBe(before + 1);
    expect(forms.at(-1)!.message).toMatch(/^Cancel a .* A cancellation fee may apply/);
    expect(cancelled.isError, JSON.stringify(cancelled.content)).toBeFalsy();
    expect(structured(cancelled)).toMatchObject({ status: 'cancelled', confirmed_by: 'elicitation' });
  });

  it('a dismissed form cancels nothing', async () => {
    s = await serve(sb, home, { elicit: () => ({ action: 'cancel' }) });
    const list = structured(await s.call('list_trips', {}));
    const uuid = list.active.find((t: { status: string }) => t.status === 'new').uuid;
    const r = await s.call('cancel_reservation', { reservation_uuid: uuid });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(structured(r)).toMatchObject({ sent: false, customer_answer: 'cancel' });
    // (the start-up capability probe is a DELETE of a uuid that cannot exist)
    expect((await requests(sb, 'cancelReservation')).filter((q) => q.path.includes(uuid))).toEqual([]);
    expect(await tripStatus(s, uuid)).toBe('new');
  });
});

describe('cancel_reservation writes only what was confirmed', () => {
  async function booked(session: Session): Promise<string> {
    const r = await session.call('reserve', trip({ confirmation: await quoted(session) }));
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    await admin(sb, 'DELETE', '/requests');
    return structured(r).reservation_uuid as string;
  }

  it('needs the cancel_confirmation of that reservation; with it, cancels once and says what get_trip says', async () => {
    s = await serve(sb, home);
    const uuid = await booked(s);
    const [other] = (await freeCars(sb, 2)).filter((a) => a !== alias);
    const otherUuid = structured(await s.call('reserve', { ...trip(), car_alias: other, confirmation: await quoted(s, { car_alias: other }) })).reservation_uuid;
    const otherConfirmation = structured(await s.call('get_trip', { reservation_uuid: otherUuid })).cancel_confirmation;
    const wrong = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation: otherConfirmation });
    expect(wrong.isError).toBe(true);
    expect(errorOf(wrong).message).toBe('this confirmation was issued for another reservation: nothing was sent');
    expect(await requests(sb, 'cancelReservation')).toEqual([]);

    const confirmation = structured(await s.call('get_trip', { reservation_uuid: uuid })).cancel_confirmation;
    const c = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation });
    expect(c.isError, JSON.stringify(c.content)).toBeFalsy();
    expect(structured(c)).toMatchObject({ status: 'cancelled', sent: true, replayed: false });
    const again = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation });
    expect(structured(again)).toMatchObject({ status: 'cancelled', replayed: true });
    expect(await tripStatus(s, uuid)).toBe('cancelled');
    expect(new Set((await requests(sb, 'cancelReservation')).map((q) => q.idempotency_key)).size).toBe(1);
    // a cancelled trip offers no cancel_confirmation
    expect(structured(await s.call('get_trip', { reservation_uuid: uuid })).cancel_confirmation).toBeUndefined();
  });

  it('an unknown outcome keeps the key; the same call finishes it', async () => {
    s = await serve(sb, home);
    const uuid = await booked(s);
    const confirmation = structured(await s.call('get_trip', { reservation_uuid: uuid })).cancel_confirmation;
    await faults(sb, { kind: 'error', operation: 'cancelReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    const failed = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation });
    expect(failed.isError).toBe(true);
    const [entry] = await unfinished();
    expect(errorOf(failed).next_step).toContain(`it reuses idempotency key ${entry.key}, so it cannot cancel twice`);
    const again = await s.call('cancel_reservation', { reservation_uuid: uuid, confirmation });
    expect(structured(again)).toMatchObject({ status: 'cancelled', sent: true, replayed: true });
    expect(await tripStatus(s, uuid)).toBe('cancelled');
    expect(new Set((await requests(sb, 'cancelReservation')).map((q) => q.idempotency_key))).toEqual(new Set([entry.key]));
  });
});
