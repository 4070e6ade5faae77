// One state file for every sandbox on it (docs/sandbox.md, "The state file"): a running
// `carrental sandbox serve`, a `carrental --sandbox` command and a `carrental --sandbox mcp`
// server, each its own process, read and write the same file and see each other's writes.
// Spawned built CLI on the Node running the suite: the JSON store on Node 20, the SQLite
// store on 22+ (.ci/extra runs the *.e2e.* files on both).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { tripBody } from './harness.js';
import { type Serve as Served, type Session, Serve, connect, daysAhead, text } from '../mcp/harness.js';

let home: TestHome;
let serve: Served | undefined;
let mcp: Session | undefined;
beforeEach(() => {
  home = new TestHome();
});
afterEach(async () => {
  await mcp?.close();
  await serve?.stop();
  mcp = serve = undefined;
  home.cleanup();
});

describe('sandbox serve, a --sandbox command and the --sandbox MCP server on one state file', () => {
  it('see each other’s writes', async () => {
    const statePath = join(home.dir, 'shared.json');
    const env = home.env({ CARRENTAL_SANDBOX_STATE: statePath });
    serve = await Serve.start(home, [], 'shared.json');
    mcp = await connect(['--sandbox', 'mcp', '--allow-booking'], env);
    const cli = async (...argv: string[]) => {
      const r = await runBin(['--sandbox', ...argv], { env });
      expect(r.code, `carrental --sandbox ${argv.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    const from = daysAhead(30);
    const to = daysAhead(33);
    const search = async () => {
      const page = await mcp!.call('search_cars', { city: 'la', date_from: from, date_to: to, limit: 200 });
      expect(page.isError, text(page)).toBeFalsy();
      return (page.structuredContent as { cars: Array<{ car_alias: string; is_available: boolean }> }).cars;
    };
    const [byServe, byCli, byMcp] = (await search()).filter((c) => c.is_available).map((c) => c.car_alias);

    // 1. the served sandbox books and is paid: the command and the MCP server see the trip, and the car taken
    const created = await fetch(`${serve.info.base_url}/my/reservation`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${serve.info.keys.booking_write}`, 'Idempotency-Key': crypto.randomUUID(), 'Content-Type': 'application/json' },
      body: JSON.stringify(tripBody(byServe, from, to)),
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const served = ((await created.json()) as { data: string }).data;
    await serve.admin('POST', '/pay', { reservation_uuid: served, payment_type: 'rent' });
    expect(JSON.parse(await cli('trips', served, '--json'))).toMatchObject({ uuid: served, status: 'new' });
    const trip = await mcp.call('get_trip', { reservation_uuid: served });
    expect(trip.isError, text(trip)).toBeFalsy();
    expect(trip.structuredContent).toMatchObject({ uuid: served });
    expect((await search()).find((c) => c.car_alias === byServe)?.is_available).toBe(false);

    // 2. the command books: the served sandbox and the MCP server see it
    const reserved = JSON.parse(await cli('reserve', byCli, '--from', from.replace('T', ' '), '--to', to.replace('T', ' '), '-y', '--json')) as { uuid: string };
    expect((await serve.reservations()).map((r) => r.uuid)).toContain(reserved.uuid);
    const seen = await mcp.call('get_trip', { reservation_uuid: reserved.uuid });
    expect(seen.isError, text(seen)).toBeFalsy();
    expect(seen.structuredContent).toMatchObject({ uuid: reserved.uuid });

    // 3. the MCP server books: the served sandbox and the command see it
    const quote = await mcp.call('quote', { car_alias: byMcp, date_checkin: from, date_checkout: to });
    expect(quote.isError, text(quote)).toBeFalsy();
    const booked = await mcp.call('reserve', { car_alias: byMcp, date_checkin: from, date_checkout: to, confirmation: (quote.structuredContent as any).confirmation });
    expect(booked.isError, text(booked)).toBeFalsy();
    const byAgent = (booked.structuredContent as { reservation_uuid: string }).reservation_uuid;
    expect((await serve.reservations()).map((r) => r.uuid)).toContain(byAgent);
    const listed = JSON.parse(await cli('trips', '--json')) as { active: Array<{ uuid: string }> };
    expect(listed.active.map((t) => t.uuid)).toEqual(expect.arrayContaining([served, reserved.uuid, byAgent]));

    // 4. a change of the served sandbox's clock is the clock of the others
    await serve.admin('POST', '/clock', { advance_seconds: 86_400 * 400 });
    const later = JSON.parse(await cli('trips', served, '--json')) as { status: string };
    expect(later.status).not.toBe('new');

    // the store of this Node: a database where node:sqlite exists, the JSON document on Node 20
    const head = readFileSync(statePath).subarray(0, 16).toString('latin1');
    expect(head.startsWith(loadSqlite() ? 'SQLite format 3' : '{')).toBe(true);
  }, 120_000);
});
