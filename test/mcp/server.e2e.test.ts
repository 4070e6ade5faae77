// `carrental mcp` end to end: the built CLI spawned as an MCP server over stdio, driven by
// the SDK's own client, against a spawned `carrental sandbox serve`. Every tool, the
// read-only default, booking with --allow-booking, a reserve retried after the server was
// killed, errors, and the key that never shows.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/api/operations.js';
import { JOURNAL_FILE } from '../../src/store/journal.js';
import { BIN } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { connect, daysAhead, Serve, text, type Session } from './harness.js';

const READ_TOOLS = [
  'search_cars',
  'get_car',
  'quote',
  'get_profile',
  'get_verification',
  'get_saved_card',
  'card_link',
  'list_trips',
  'get_trip',
  'list_invoices',
  'get_invoice',
  'payment_link',
  'extension_price',
  'extension_link',
  'wait_for_payment',
];
const WRITE_TOOLS = ['reserve', 'cancel_reservation'];
const FROM = daysAhead(30);
const TO = daysAhead(33);

let home: TestHome;
let serve: Serve;
const sessions: Session[] = [];

beforeAll(async () => {
  home = new TestHome();
  serve = await Serve.start(home);
});
afterAll(async () => {
  await readOnly?.close().catch(() => undefined);
  await booking?.close().catch(() => undefined);
  await serve.stop();
  home.cleanup();
});
beforeEach(async () => {
  // a fresh world for each test: the sandbox reset, and with it the journal of the home the
  // servers share (an entry of an earlier test's reserve would replay a reservation the
  // reset removed, whatever order the tests run in)
  rmSync(join(home.dir, 'state', JOURNAL_FILE), { force: true });
  await serve.admin('POST', '/reset');
  await serve.admin('DELETE', '/faults');
  await serve.admin('PATCH', '/config', { maxActiveReservations: 50 });
  await serve.admin('DELETE', '/requests');
});
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close().catch(() => undefined);
});

async function start(opts: { key?: string; allowBooking?: boolean; extra?: string[]; toolsetArgs?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Session> {
  const argv = ['--base-url', serve.info.base_url, ...(opts.extra ?? []), 'mcp', ...(opts.allowBooking ? ['--allow-booking'] : []), ...(opts.toolsetArgs ?? [])];
  const s = await connect(argv, home.env({ CARRENTAL_API_KEY: opts.key ?? serve.info.keys.booking_write, ...opts.env }));
  sessions.push(s);
  return s;
}

/**
 * The default server (read-only, the booking_write key), started once and shared by the
 * tests that need nothing else of it: each start is a node process loading the MCP bundle.
 * The sandbox behind it is reset before every test all the same.
 */
let readOnly: Session | undefined;
async function shared(): Promise<Session> {
  readOnly ??= await connect(['--base-url', serve.info.base_url, 'mcp'], home.env({ CARRENTAL_API_KEY: serve.info.keys.booking_write }));
  return readOnly;
}

/** The same for the server with --allow-booking (its journal is the home's, as a new server's would be). */
let booking: Session | undefined;
async function sharedBooking(): Promise<Session> {
  booking ??= await connect(['--base-url', serve.info.base_url, 'mcp', '--allow-booking'], home.env({ CARRENTAL_API_KEY: serve.info.keys.booking_write }));
  return booking;
}

async function freeCar(s: Session): Promise<string> {
  const page = await s.call('search_cars', { city: 'la', date_from: FROM, date_to: TO, limit: 50, order_by: 'price_asc' });
  const cars = (page.structuredContent as { cars: Array<{ car_alias: string; is_available: boolean }> }).cars;
  return cars.find((c) => c.is_available)!.car_alias;
}

describe('registration', () => {
  it('is read-only by default: the 15 read tools, each annotated readOnlyHint, with an input schema', async () => {
    const s = await shared();
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      expect(t.inputSchema.type, t.name).toBe('object');
    }
    // an unknown tool is a protocol error with the spec's code (invalid params), not a tool result
    await expect(s.call('reserve', { car_alias: 'x', date_checkin: FROM, date_checkout: TO })).rejects.toThrow(/-32602.*reserve not found/i);
    expect(s.stderr()).toMatch(/\(read-only\)/);
  });

  it('with --allow-booking and a booking_write key: reserve and cancel_reservation, annotated as writes', async () => {
    const s = await sharedBooking();
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const reserve = tools.find((t) => t.name === 'reserve')!;
    const cancel = tools.find((t) => t.name === 'cancel_reservation')!;
    expect(reserve.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(cancel.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  });

  it('with --allow-booking but a read_only key: no write tools, and stderr says why', async () => {
    const s = await start({ allowBooking: true, key: serve.info.keys.read_only });
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());
    expect(s.stderr()).toMatch(/reserve and cancel_reservation are not offered: the key is read_only/);
  });

  it('with no key at all: the catalog works, the account tools say a key is needed, and booking is not offered', async () => {
    const s = await connect(['--base-url', serve.info.base_url, 'mcp', '--allow-booking'], home.env());
    sessions.push(s);
    expect((await s.client.listTools()).tools.map((t) => t.name)).not.toContain('reserve');
    expect(s.stderr()).toMatch(/not offered: no API key is configured/);
    expect((await s.call('search_cars', { limit: 1 })).isError).toBeFalsy();
    const trips = await s.call('list_trips');
    expect(trips.isError).toBe(true);
    expect(text(trips)).toMatch(/needs an API key/);
  });

  it('--toolsets registers only those toolsets; booking still needs --allow-booking; an unknown toolset fails start-up with exit 2', async () => {
    const catalog = await start({ extra: [], toolsetArgs: ['--toolsets', 'catalog'] });
    expect((await catalog.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_car', 'quote', 'search_cars']);
    const noFlag = await start({ toolsetArgs: ['--toolsets', 'catalog,booking'] });
    expect((await noFlag.client.listTools()).tools.map((t) => t.name)).not.toContain('reserve');
    expect(noFlag.stderr()).toMatch(/not offered: the booking toolset also needs --allow-booking/);
    const booking = await start({ allowBooking: true, toolsetArgs: ['--toolsets', 'booking'] });
    expect((await booking.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['cancel_reservation', 'reserve']);
    const bad = spawn(process.execPath, [BIN, '--base-url', serve.info.base_url, 'mcp', '--toolsets', 'catalog,bookings'], { env: home.env() });
    let stderr = '';
    bad.stderr.on('data', (d) => (stderr += d));
    expect(await new Promise((r) => bad.once('exit', r))).toBe(2);
    expect(stderr).toMatch(/--toolsets takes a comma-separated list of catalog, account, links, booking; unknown: bookings/);
  });

  it('one tool per operation of the operations table', async () => {
    const { toolsByOperation } = await import('../../src/mcp/server.js');
    const map = toolsByOperation();
    expect([...map.keys()].map((op) => op.id)).toEqual(OPERATIONS.map((op) => op.id));
    expect(new Set([...map.values()].map((t) => t.name)).size).toBe(OPERATIONS.length);
  });
});

describe('read tools', () => {
  it('search_cars, get_car and quote: compact, integer cents once, car-local dates with their zone named', async () => {
    const s = await shared();
    const page = await s.call('search_cars', { city: 'la', date_from: FROM, date_to: TO, limit: 3 });
    expect(page.isError).toBeFalsy();
    const p = page.structuredContent as any;
    expect(p.cars).toHaveLength(3);
    expect(p.has_more).toBe(true);
    expect(p.next_offset).toBe(3);
    const car = p.cars[0];
    expect(Number.isInteger(car.display_trip_total_cents)).toBe(true);
    expect(car.prices).toBeUndefined();

    const detail = (await s.call('get_car', { car_alias: car.car_alias })).structuredContent as any;
    expect(detail.car_alias).toBe(car.car_alias);
    expect(detail.time_zone).toBe('America/Los_Angeles');
    expect(Number.isInteger(detail.prices.car.price_deposit)).toBe(true);

    const quote = await s.call('quote', { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO, options: { protection_plan: 'standard' } });
    expect(quote.isError).toBeFalsy();
    const q = quote.structuredContent as any;
    expect(Number.isInteger(q.final_total)).toBe(true);
    expect(q).toMatchObject({ date_checkin: FROM, time_zone: 'America/Los_Angeles', options: { protection_plan: 'standard' } });
    // a read-only server issues no confirmation
    expect(q.confirmation).toBeUndefined();
    expect(q.note).toMatch(/reserves nothing/);
  });

  it('search_cars pages with next_offset until has_more is false, never listing a car twice', async () => {
    const s = await shared();
    const seen: string[] = [];
    let offset: number | undefined = 0;
    let total = 0;
    while (offset !== undefined) {
      const page = (await s.call('search_cars', { limit: 200, offset })).structuredContent as any;
      seen.push(...page.cars.map((c: any) => c.car_alias));
      total = page.total;
      offset = page.next_offset;
      if (offset === undefined) expect(page.has_more).toBe(false);
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });

  it('account and trip tools, and the three link tools with their reminder and X-Agent-Client naming the host', async () => {
    const s = await shared();
    const profile = (await s.call('get_profile')).structuredContent as any;
    expect(profile.first_name).toBeTruthy();
    const verification = (await s.call('get_verification')).structuredContent as any;
    expect(['unknown', 'pending', 'verified']).toContain(verification.status);
    const card = (await s.call('get_saved_card')).structuredContent as any;
    expect(card).toHaveProperty('card');
    expect(card.note).toMatch(/does not guarantee/);

    const trips = (await s.call('list_trips')).structuredContent as any;
    const all = [...trips.active, ...trips.history];
    expect(all.length).toBeGreaterThan(0);
    for (const t of all) expect(t.time_zone).toMatch(/^America\/(Los_Angeles|New_York)$/);
    const withInvoices = all.find((t: any) => t.status !== 'new') ?? all[0];
    const trip = (await s.call('get_trip', { reservation_uuid: withInvoices.uuid })).structuredContent as any;
    expect(trip.uuid).toBe(withInvoices.uuid);
    expect(trip.financial_summary).toBeTruthy();
    const invoices = (await s.call('list_invoices', { reservation_uuid: trip.uuid })).structuredContent as any;
    expect(invoices.invoices.length).toBeGreaterThan(0);
    const inv = invoices.invoices[0];
    expect(Number.isInteger(inv.amount)).toBe(true);
    expect(JSON.stringify(invoices)).not.toContain('_formatted');
    const one = (await s.call('get_invoice', { invoice_uuid: inv.id })).structuredContent as any;
    expect(one.id).toBe(inv.id);

    const cardLink = (await s.call('card_link')).structuredContent as any;
    expect(cardLink.action).toBe('add_payment_card');
    expect(cardLink.reminder).toMatch(/not completion/);

    const active = trips.active.find((t: any) => t.status === 'new');
    expect(active).toBeTruthy();
    // two days after the current check-out, at 10:00
    const day = active.date_checkout.slice(0, 10);
    const newCheckout = `${new Date(Date.parse(`${day}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10)}T10:00`;
    const preview = await s.call('extension_price', { reservation_uuid: active.uuid, new_checkout: newCheckout });
    expect(preview.isError, text(preview)).toBeFalsy();
    const pr = preview.structuredContent as any;
    expect(Number.isInteger(pr.total_amount)).toBe(true);
    expect(pr.time_zone).toMatch(/^America\//);
    const extend = (await s.call('extension_link', { reservation_uuid: active.uuid, checkout: newCheckout })).structuredContent as any;
    expect(extend.action).toBe('extend_reservation');
    expect(extend.url).toContain('checkout=');
    expect(extend.reminder).toMatch(/not completion/);

    const pay = await s.call('payment_link', { reservation_uuid: active.uuid, payment_type: 'deposit' });
    // a fixture trip may owe nothing: either a link or the API's nothing_to_pay, as a tool error
    if (pay.isError) expect(text(pay)).toMatch(/nothing_to_pay/);
    else expect((pay.structuredContent as any).reminder).toMatch(/not completion/);

    const links = (await serve.requests()).filter((r) => ['cardAddLink', 'extensionLink', 'paymentLink'].includes(r.operation ?? ''));
    expect(links.length).toBeGreaterThanOrEqual(2);
    for (const r of links) expect(r.agent_client).toBe('mcp-test-host/1.2.3 carrental/0.1.0');
  });

  it('a host that names itself with no version, or not at all: X-Agent-Client says what it can', async () => {
    const s = await connect(['--base-url', serve.info.base_url, 'mcp'], home.env({ CARRENTAL_API_KEY: serve.info.keys.booking_write }), { name: 'Höst Ä', version: '' });
    sessions.push(s);
    await s.call('card_link');
    const link = (await serve.requests()).find((r) => r.operation === 'cardAddLink')!;
    expect(link.agent_client).toBe('H-st carrental/0.1.0');
  });
});

/** A quote's confirmation for these arguments (the customer agreed to its total). */
async function confirmed(s: Session, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const q = await s.call('quote', args);
  expect(q.isError, text(q)).toBeFalsy();
  return { ...args, confirmation: (q.structuredContent as any).confirmation };
}

describe('booking', () => {
  it('sandbox end to end: search, quote, reserve, payment link, the customer pays, the trip reads settled', async () => {
    const s = await sharedBooking();
    const alias = await freeCar(s);
    const args = await confirmed(s, { car_alias: alias, date_checkin: FROM, date_checkout: TO });
    const reserved = await s.call('reserve', args);
    expect(reserved.isError, text(reserved)).toBeFalsy();
    const r = reserved.structuredContent as any;
    expect(r.reservation_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r).toMatchObject({ status: 'new', replayed: false, date_checkin: FROM });
    expect(r.next_step).toMatch(/payment_link/);

    const link = await s.call('payment_link', { reservation_uuid: r.reservation_uuid });
    expect(link.isError, text(link)).toBeFalsy();
    const l = link.structuredContent as any;
    expect(l.action).toBe('pay_reservation');
    expect(l.url).toContain(r.reservation_uuid);
    expect(l.reminder).toMatch(/not completion/);

    const before = (await s.call('get_trip', { reservation_uuid: r.reservation_uuid })).structuredContent as any;
    expect(before.payment_status.type).toBe('to_pay');
    // the customer pays on the page (the sandbox's admin endpoint does what the page does)
    await serve.admin('POST', '/pay', { reservation_uuid: r.reservation_uuid, payment_type: 'rent' });
    const after = (await s.call('get_trip', { reservation_uuid: r.reservation_uuid })).structuredContent as any;
    expect(after.payment_status.type).toBe('settled');

    // the same call again never books twice
    const again = await s.call('reserve', args);
    expect((again.structuredContent as any).reservation_uuid).toBe(r.reservation_uuid);
    const mine = (await serve.reservations()).filter((x) => x.car_alias === alias && x.date_checkin === FROM);
    expect(mine).toHaveLength(1);
  });

  it('the same reserve and confirmation again, also from a new server: the same key, one reservation', async () => {
    const s = await start({ allowBooking: true });
    const alias = await freeCar(s);
    const args = await confirmed(s, { car_alias: alias, date_checkin: FROM, date_checkout: TO, options: { protection_plan: 'standard' } });
    const first = (await s.call('reserve', args)).structuredContent as any;
    expect(first.replayed).toBe(false);
    const again = await s.call('reserve', args);
    expect(again.isError, text(again)).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ reservation_uuid: first.reservation_uuid, replayed: true });
    await s.close();
    const restarted = await start({ allowBooking: true });
    expect((await restarted.call('reserve', args)).structuredContent).toMatchObject({ reservation_uuid: first.reservation_uuid, replayed: true });
    expect((await serve.reservations()).filter((x) => x.car_alias === alias)).toHaveLength(1);
    const creates = (await serve.requests()).filter((x) => x.operation === 'createReservation');
    expect(creates.length).toBeGreaterThanOrEqual(1);
    expect(new Set(creates.map((x) => x.idempotency_key)).size).toBe(1);
  });

  it('cancel_reservation with the cancel_confirmation of get_trip cancels once and shows the outcome; again, it replays the same key', async () => {
    const s = await sharedBooking();
    const alias = await freeCar(s);
    const r = (await s.call('reserve', await confirmed(s, { car_alias: alias, date_checkin: FROM, date_checkout: TO }))).structuredContent as any;
    const { cancel_confirmation: confirmation } = (await s.call('get_trip', { reservation_uuid: r.reservation_uuid })).structuredContent as any;
    const cancelled = await s.call('cancel_reservation', { reservation_uuid: r.reservation_uuid, confirmation });
    expect(cancelled.isError, text(cancelled)).toBeFalsy();
    const c = cancelled.structuredContent as any;
    expect(c).toMatchObject({ status: 'cancelled', sent: true, cancellation_outcome: { status: 'cancelled' } });
    const again = (await s.call('cancel_reservation', { reservation_uuid: r.reservation_uuid, confirmation })).structuredContent as any;
    expect(again).toMatchObject({ status: 'cancelled' });
    // (the other DELETE of the log is the start-up capability probe, on a uuid that cannot exist)
    const cancels = (await serve.requests()).filter((x) => x.operation === 'cancelReservation' && x.path.includes(r.reservation_uuid));
    expect(new Set(cancels.map((x) => x.idempotency_key)).size).toBe(1);
  });

  it('a reserve retried after the MCP server was killed mid-call books once and answers the first reservation', async () => {
    const first = await start({ allowBooking: true });
    const alias = await freeCar(first);
    const args = await confirmed(first, { car_alias: alias, date_checkin: FROM, date_checkout: TO });
    // the server commits, then takes 4 s to answer: time to kill the MCP server in between
    await serve.admin('POST', '/faults', { kind: 'latency', operation: 'createReservation', ms: 4000, when: 'after_commit', times: 1 });
    const pending = first.call('reserve', args).catch((err: Error) => err);
    const deadline = Date.now() + 10_000;
    while ((await serve.reservations()).filter((x) => x.car_alias === alias).length === 0) {
      if (Date.now() > deadline) throw new Error('the reservation was never committed');
      await new Promise((r) => setTimeout(r, 50));
    }
    process.kill(first.transport.pid!, 'SIGKILL');
    expect(await pending).toBeInstanceOf(Error);
    const committed = (await serve.reservations()).filter((x) => x.car_alias === alias);
    expect(committed).toHaveLength(1);

    const second = await start({ allowBooking: true });
    const retried = await second.call('reserve', args);
    expect(retried.isError, text(retried)).toBeFalsy();
    const r = retried.structuredContent as any;
    expect(r).toMatchObject({ reservation_uuid: committed[0].uuid, replayed: true, status: 'new' });
    // the state it claims is the one get_trip reads
    expect(((await second.call('get_trip', { reservation_uuid: r.reservation_uuid })).structuredContent as any).status).toBe(r.status);
    expect((await serve.reservations()).filter((x) => x.car_alias === alias)).toHaveLength(1);
    const creates = (await serve.requests()).filter((x) => x.operation === 'createReservation');
    expect(new Set(creates.map((x) => x.idempotency_key)).size).toBe(1);
  });
});

describe('errors', () => {
  it('a bad date is a tool error that says what to fix, and no request is sent', async () => {
    const s = await shared();
    await serve.admin('DELETE', '/requests');
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['quote', { car_alias: 'x', date_checkin: '2026-02-30T10:00', date_checkout: '2026-03-04T10:00' }, /date_checkin is not a real date/],
      ['quote', { car_alias: 'x', date_checkin: '2026-12-01 10:00', date_checkout: '2026-12-04T10:00' }, /YYYY-MM-DDTHH:MM/],
      ['quote', { car_alias: 'x', date_checkin: FROM, date_checkout: FROM }, /date_checkout .* must be after date_checkin/],
      ['search_cars', { date_from: FROM }, /date_from and date_to go together/],
      ['search_cars', { limit: 500 }, /limit/],
      ['get_trip', { reservation_uuid: 'not-a-uuid' }, /UUID/],
      ['extension_link', { reservation_uuid: '00000000-0000-4000-8000-000000000000', checkout: '2026-13-01T10:00' }, /checkout is not a real date/],
      ['quote', { car_alias: 'x', date_checkin: FROM, date_checkout: TO, options: { delivery_type: 'delivery' } }, /options.delivery_address is required/],
      ['quote', { car_alias: 'x', date_checkin: FROM, date_checkout: TO, options: { protection: 'standard' } }, /protection/],
      ['quote', { car_alias: 'x', date_checkin: FROM, date_checkout: TO, promo: 'WELCOME10' }, /promo/],
      ['quote', { car_alias: 'x', date_checkin: FROM, date_checkout: TO, promo_code: '  ' }, /promo_code is empty/],
      ['get_car', { car_alias: 'has space' }, /not a car alias/],
    ];
    for (const [tool, args, message] of cases) {
      const r = await s.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(text(r)).toMatch(message);
    }
    expect(await serve.requests()).toEqual([]);
  });

  it('API errors carry the error_code, the description and the next step; 503 the wait', async () => {
    const s = await shared();
    const missing = await s.call('get_trip', { reservation_uuid: '00000000-0000-4000-8000-000000000000' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/reservation_not_found/);
    expect(text(missing)).toMatch(/next step: no such reservation for this customer: list_trips/);
    const detail = JSON.parse((missing.content[1] as { text: string }).text).error;
    expect(detail).toMatchObject({ http_status: 404, error_code: 'reservation_not_found' });

    await serve.admin('POST', '/faults', { kind: 'error', operation: 'cardAddLink', code: 'manual_action_unavailable' });
    const busy = await s.call('card_link');
    expect(busy.isError).toBe(true);
    expect(text(busy)).toMatch(/manual_action_unavailable/);
    expect(text(busy)).toMatch(/retry after: 1 s/);
    expect(JSON.parse((busy.content[1] as { text: string }).text).error).toMatchObject({ http_status: 503, retry_after_seconds: 1 });

    // the server is still there
    expect((await s.call('get_profile')).isError).toBeFalsy();
  });

  it('no tool result, error or log line holds the key, even with --debug', async () => {
    const key = serve.info.keys.booking_write;
    const s = await start({ allowBooking: true, extra: ['--debug'] });
    const results = [
      await s.call('get_profile'),
      await s.call('get_trip', { reservation_uuid: '00000000-0000-4000-8000-000000000000' }),
      await s.call('card_link'),
      await s.call('quote', { car_alias: 'nope', date_checkin: FROM, date_checkout: TO }),
    ];
    await s.close();
    expect(s.stderr()).toMatch(/authorization: Bearer svc_…/);
    for (const r of results) expect(JSON.stringify(r)).not.toContain(key);
    expect(s.stderr()).not.toContain(key);
  });
});

describe('stdio', () => {
  it('survives a malformed line and an unknown method, answers the next request, and exits 0 when stdin closes', async () => {
    const child = spawn(process.execPath, [BIN, '--base-url', serve.info.base_url, 'mcp'], { env: home.env({ CARRENTAL_API_KEY: serve.info.keys.read_only }) });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const lines = () => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const waitFor = async (id: number) => {
      const deadline = Date.now() + 10_000;
      while (!lines().some((m) => m.id === id)) {
        if (Date.now() > deadline) throw new Error(`no answer to ${id}: ${stdout}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return lines().find((m) => m.id === id);
    };
    const send = (msg: unknown) => child.stdin.write(`${typeof msg === 'string' ? msg : JSON.stringify(msg)}\n`);
    send('this is not json {');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    expect((await waitFor(1)).result.serverInfo.name).toBe('carrental');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' });
    expect((await waitFor(2)).error.code).toBe(-32601);
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_trip', arguments: { reservation_uuid: 42 } } });
    expect((await waitFor(3)).result.isError).toBe(true);
    send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect((await waitFor(4)).result.tools).toHaveLength(READ_TOOLS.length);
    const exit = new Promise<[number | null, string | null]>((r) => child.once('exit', (code, signal) => r([code, signal])));
    child.stdin.end();
    expect(await exit).toEqual([0, null]);
  });

  it('a call still in flight when stdin closes is answered before the server exits 0', async () => {
    const child = spawn(process.execPath, [BIN, '--base-url', serve.info.base_url, 'mcp'], { env: home.env({ CARRENTAL_API_KEY: serve.info.keys.read_only }) });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exit = new Promise<[number | null, string | null]>((r) => child.once('exit', (code, signal) => r([code, signal])));
    await serve.admin('POST', '/faults', { kind: 'latency', operation: 'getProfile', ms: 500, times: 1 });
    child.stdin.end(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_profile', arguments: {} } })}\n`);
    expect(await exit).toEqual([0, null]);
    const answer = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(answer.id).toBe(7);
    expect(answer.result.structuredContent.first_name).toBeTruthy();
  });

  it('SIGTERM and a closed stdout end it cleanly (exit 0)', async () => {
    for (const how of ['SIGTERM', 'stdout'] as const) {
      const child = spawn(process.execPath, [BIN, '--base-url', serve.info.base_url, 'mcp'], { env: home.env({ CARRENTAL_API_KEY: serve.info.keys.read_only }) });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exit = new Promise<[number | null, string | null]>((r) => child.once('exit', (code, signal) => r([code, signal])));
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
      child.stdin.write(`${JSON.stringify(init)}\n`);
      await new Promise((r) => child.stdout.once('data', r));
      if (how === 'SIGTERM') child.kill('SIGTERM');
      else {
        // the host stops reading: the next answer meets a closed pipe
        child.stdout.destroy();
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
      }
      expect(await exit, how).toEqual([0, null]);
      expect(stderr, how).not.toMatch(/Error|at .*\.js:\d+/);
    }
  });

  it('--sandbox works with no key: the demo booking_write key books', async () => {
    const s = await connect(['--sandbox', 'mcp', '--allow-booking'], home.env({ CARRENTAL_SANDBOX_STATE: `${home.dir}/embedded.json` }));
    sessions.push(s);
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toContain('reserve');
    const alias = await freeCar(s);
    // dates of its own: the same request with the same demo key, booked minutes ago through
    // the served sandbox of the other tests, would be that booking (identity is the request
    // and the key, not the address) and is refused here as "already reserved"
    const r = await s.call('reserve', await confirmed(s, { car_alias: alias, date_checkin: daysAhead(40), date_checkout: daysAhead(43) }));
    expect(r.isError, text(r)).toBeFalsy();
    const link = (await s.call('payment_link', { reservation_uuid: (r.structuredContent as any).reservation_uuid })).structuredContent as any;
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/app\/trips\//);
  });
});
