// Issue 34: an agent that re-plans never books twice. The host times out on `reserve` while
// the booking is made; the agent quotes again and reserves with a new confirmation (a new
// key). The one rule of src/booking (createCommand) answers the first booking instead, in
// one process, across two processes sharing a journal, and after a restart; booking an
// identical second one takes `fresh` (the CLI's --new, the MCP tool's book_another).
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { Api } from '../../src/api/endpoints.js';
import { buildCreateRequest } from '../../src/booking/create-request.js';
import { JournaledWrite } from '../../src/booking/journaled-write.js';
import { createCommand, createReservation } from '../../src/booking/reservations.js';
import type { Context } from '../../src/session/context.js';
import type { Target } from '../../src/session/services.js';
import { Output } from '../../src/render/output.js';
import { runBin } from '../helpers/bin.js';
import { FakeOut } from '../helpers/cli.js';
import { FROM, TO, faults, requests, reservations, SANDBOX_NOW, test } from './sandbox.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';

const KEY_A = 'mcp-confirmation-key-aaaaaaaa-0001';
const KEY_B = 'mcp-confirmation-key-bbbbbbbb-0002';

/** What a front end in one process holds: an API client, a journaled writer on the test's state dir. */
function frontEnd(sb: RunningSandbox, stateDir: string) {
  const stderr = new FakeOut(false);
  const ctx = {
    io: { stdin: process.stdin, stdout: new FakeOut(false), stderr },
    env: { CARRENTAL_STATE_DIR: stateDir },
    globals: { profile: 'default', sandbox: false, json: false, color: false, input: false, yes: true, debug: false, timeoutMs: 30_000 },
    version: 'test',
    now: () => SANDBOX_NOW,
    sleep: async () => {},
    signal: new AbortController().signal,
    canPrompt: () => false,
    onCleanup: () => {},
  } as unknown as Context;
  const out = new Output(ctx);
  const target = { profile: 'default', baseUrl: sb.baseUrl, apiKey: sb.keys.booking_write, sandbox: false } as Target;
  const client = new ApiClient({ baseUrl: sb.baseUrl, apiKey: sb.keys.booking_write, timeoutMs: 30_000, userAgent: 'test' });
  const api = new Api(client, 'test');
  const writer = new JournaledWrite(ctx, out, target);
  return { api, writer, out, stderr, now: () => SANDBOX_NOW, close: () => client.close() };
}

describe('an agent that re-plans', () => {
  test('host timeout, a new quote and a new key: reserve answers the first booking (replayed, status read now)', async ({ sb, alias, home }) => {
    const fe = frontEnd(sb, join(home.dir, 'state'));
    try {
      const body = buildCreateRequest({ alias, from: FROM, to: TO });
      // the first call books; the host gave up waiting, so the agent never saw this answer
      const first = await createReservation(fe, createCommand(body, { key: KEY_A }), body, { alwaysReadBack: true });
      expect(first.reused).toBe(false);
      // the agent quotes again (a read) and reserves with the new quote's key
      await fe.api.quote(body, true).catch(() => undefined);
      const retried = createCommand(body, { key: KEY_B, fresh: false });
      expect((await fe.writer.pending(retried))?.state).toBe('done');
      const second = await createReservation(fe, retried, body, { alwaysReadBack: true });
      expect(second).toMatchObject({ uuid: first.uuid, reused: true, status: 'new', key: KEY_A });
      expect(second.doneBefore).toBeDefined();
      expect(fe.stderr.text()).toContain(`(replaying idempotency key ${KEY_A}, not the given ${KEY_B})`);
      expect(await reservations(sb, alias)).toHaveLength(1);
      // the status is read back now, after the replay
      const log = await requests(sb);
      const lastCreate = log.map((r) => r.operation).lastIndexOf('createReservation');
      expect(log.slice(lastCreate).some((r) => r.operation !== 'createReservation' && r.path.includes(first.uuid))).toBe(true);

      // an identical second booking takes `fresh`
      const another = await createReservation(fe, createCommand(body, { key: 'mcp-confirmation-key-cccccccc-0003', fresh: true }), body);
      expect(another.reused).toBe(false);
      expect(another.uuid).not.toBe(first.uuid);
      expect(await reservations(sb, alias)).toHaveLength(2);
    } finally {
      fe.close();
    }
  });

  test('a pending identical create (outcome unknown) is resumed with its key, not sent under the new one', async ({ sb, alias, home }) => {
    const fe = frontEnd(sb, join(home.dir, 'state'));
    try {
      const body = buildCreateRequest({ alias, from: FROM, to: TO });
      const { entry } = await fe.writer.journal.begin({
        profile: 'default',
        baseUrl: sb.baseUrl,
        credential: (await import('../../src/store/journal.js')).credentialFingerprint(sb.keys.booking_write),
        operation: 'createReservation',
        target: alias,
        request: body,
        key: KEY_A,
      });
      expect(entry.state).toBe('pending');
      // book_another over an unknown outcome could book twice: refused, nothing sent
      await expect(createReservation(fe, createCommand(body, { key: KEY_B, fresh: true }), body)).rejects.toThrow(/has not finished/);
      const created = await createReservation(fe, createCommand(body, { key: KEY_B }), body, { alwaysReadBack: true });
      expect(created.key).toBe(KEY_A);
      const sent = (await requests(sb, 'createReservation')).map((r) => r.idempotency_key);
      expect(sent).toEqual([KEY_A]);
    } finally {
      fe.close();
    }
  });
});

/** `carrental reserve` in its own process (the built CLI), against the test's sandbox and home. */
const spawnReserve = (sb: RunningSandbox, env: NodeJS.ProcessEnv, args: string[]) => runBin(['--base-url', sb.baseUrl, 'reserve', ...args, '-y'], { env });

describe('across processes (the built CLI: `npm run build` first)', () => {
  test('two processes sharing a journal, each with its own key, and a restart: one booking; --new books another', async ({ sb, alias, home }) => {
    const env = home.env({ CARRENTAL_API_KEY: sb.keys.booking_write });
    const args = [alias, '--from', FROM, '--to', TO];
    // the sandbox's clock is SANDBOX_NOW; the spawned CLI reads it through the API
    const [a, b] = await Promise.all([spawnReserve(sb, env, [...args, '--idempotency-key', KEY_A]), spawnReserve(sb, env, [...args, '--idempotency-key', KEY_B])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout.trim()).toBe(b.stdout.trim());
    expect(await reservations(sb, alias)).toHaveLength(1);
    // a third process later (a restart), with a third key: the same booking
    const c = await spawnReserve(sb, env, [...args, '--idempotency-key', 'script-key-cccccccc-0003']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.trim()).toBe(a.stdout.trim());
    expect(c.stderr).toMatch(/already reserved by this same command .* not the given script-key-cccccccc-0003; --new books another\)/);
    expect(await reservations(sb, alias)).toHaveLength(1);
    // explicitly another: --new goes out under a new key
    await spawnReserve(sb, env, [...args, '--new']);
    const keys = new Set((await requests(sb, 'createReservation')).map((r) => r.idempotency_key));
    expect(keys.size).toBe(2);
  });
});

describe('a replay whose connection drops (issue 36)', () => {
  test('points at what is true: the earlier booking and `trips`, not the empty `pending`', async ({ sb, alias, cli }) => {
    const args = ['reserve', alias, '--from', FROM, '--to', TO, '-y'];
    const first = await cli(args);
    expect(first.code, first.stderr).toBe(0);
    const uuid = first.stdout.trim();
    await faults(sb, { kind: 'drop', operation: 'createReservation', when: 'after_commit', times: 1 });
    const again = await cli(args, { env: { CARRENTAL_WRITE_RETRIES: '0' } });
    expect(again.code, again.stderr).toBe(6);
    expect(again.stderr).toContain(`error: this same reserve reserved ${uuid} 0 s ago; replaying its answer failed (`);
    expect(again.stderr).toContain(`hint: \`carrental trips ${uuid}\` shows it; rerunning replays the same answer`);
    expect(again.stderr).not.toContain('carrental pending');
    expect(await reservations(sb, alias)).toHaveLength(1);
  });
});

