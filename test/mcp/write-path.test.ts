// The MCP server's reserve and cancel_reservation in-process (runCli with piped stdio,
// the SDK's client on the other end) against the in-process sandbox, so that mutation
// testing sees them: the spawned end-to-end tests run dist/, which holds no mutants.
// What is pinned: an unknown outcome keeps the key and says how to finish without doing
// it twice, a call again reuses the key, a refusal leaves nothing pending, and nothing is
// sent for what the customer already holds.
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, vi } from 'vitest';
import { Api } from '../../src/api/endpoints.js';
import { runCli } from '../../src/cli/main.js';
import { JournaledWrite } from '../../src/commands/idempotent-write.js';
import { CliError } from '../../src/errors.js';
import { TOOLS } from '../../src/mcp/tools.js';
import type { InStream } from '../../src/cli/context.js';
import { Journal } from '../../src/store/journal.js';
import { FakeOut } from '../helpers/cli.js';
import { FROM, TO, admin, faults, freeCars, requests, reservations, test as bookingTest } from '../booking/sandbox.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** JSON lines over two pipes: the client's end of the server's stdio. */
class PipeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private buffer = '';
  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}
  async start() {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      for (let i = this.buffer.indexOf('\n'); i >= 0; i = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 1);
        if (line.trim()) this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
      }
    });
  }
  async send(message: JSONRPCMessage) {
    this.toServer.write(`${JSON.stringify(message)}\n`);
  }
  async close() {
    this.toServer.end();
    this.onclose?.();
  }
}

interface Session {
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** Ends the session; resolves to the server's stderr once it has stopped. */
  stop(): Promise<string>;
}


const test = bookingTest
  /** `carrental mcp --allow-booking` in-process, with the SDK's client on its stdio. */
  .extend('serve', async ({ sb, home }) => async (env: NodeJS.ProcessEnv = {}): Promise<Session> => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new FakeOut(false);
    const exited = runCli(['--base-url', sb.baseUrl, 'mcp', '--allow-booking'], {
      io: { stdin: stdin as unknown as InStream, stdout: stdout as never, stderr },
      env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, CARRENTAL_WRITE_RETRIES: '2', ...env }),
      sleep: async () => {},
    });
    const client = new Client({ name: 'mutation-test', version: '1.0.0' });
    await client.connect(new PipeTransport(stdin, stdout));
    return {
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
      stop: async () => {
        await client.close();
        expect(await exited).toBe(0);
        return stderr.text();
      },
    };
  })
  .extend('journal', async ({ home }) => () => new Journal({ path: join(home.dir, 'state', 'journal.json') }))
  .extend('unfinished', async ({ journal }) => async () => (await journal().list()).filter((e) => e.state === 'pending'))
  .extend('tripArgs', async ({ alias }) => () => ({ car_alias: alias, date_checkin: FROM, date_checkout: TO }))
  /** Books the car through the session; the request log starts empty after it. */
  .extend('booked', async ({ sb, tripArgs }) => async (s: Session): Promise<string> => {
    const r = await s.call('reserve', tripArgs());
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    await admin(sb, 'DELETE', '/requests');
    return structured(r).reservation_uuid as string;
  });
const structured = (r: CallToolResult) => r.structuredContent as Record<string, unknown>;
const errorOf = (r: CallToolResult) => JSON.parse((r.content[1] as { text: string }).text).error as Record<string, unknown>;

describe('MCP reserve', () => {
  test('an unknown outcome keeps the key and says how to finish; the same call again reuses it and books once', async ({ sb, alias, serve, unfinished, tripArgs }) => {
    await faults(sb, { kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    const s = await serve();
    try {
      const failed = await s.call('reserve', tripArgs());
      expect(failed.isError).toBe(true);
      const [entry] = await unfinished();
      expect(entry).toMatchObject({ operation: 'createReservation', target: alias, attempts: 3 }); // every retry recorded
      expect(errorOf(failed)).toMatchObject({
        kind: 'unavailable',
        next_step: `the outcome is unknown; call reserve again with the same arguments: it reuses idempotency key ${entry.key}, so it cannot book twice`,
      });

      const again = await s.call('reserve', tripArgs());
      expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
      const created = await reservations(sb, alias);
      expect(created).toHaveLength(1);
      expect(structured(again)).toMatchObject({ reservation_uuid: created[0].uuid, sent: true, resumed: true, idempotency_key: entry.key });
      expect(new Set((await requests(sb, 'createReservation')).map((q) => q.idempotency_key))).toEqual(new Set([entry.key]));
      expect(await unfinished()).toEqual([]);
    } finally {
      await s.stop();
    }
  });

  test('books once, and the same call again within the replay window replays the key: the same uuid, one reservation', async ({ sb, alias, serve, journal, tripArgs }) => {
    const s = await serve();
    try {
      const first = await s.call('reserve', tripArgs());
      expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
      const [entry] = await journal().list();
      const uuid = structured(first).reservation_uuid as string;
      expect(structured(first)).toMatchObject({
        sent: true,
        resumed: false,
        idempotency_key: entry.key,
        status: 'new',
        car_alias: alias,
        note: 'An unpaid reservation is not a paid booking and not a guaranteed hold. It is unpaid until the customer pays on the payment page.',
        next_step: `call payment_link with reservation_uuid ${uuid} and give the link to the customer`,
      });
      // the car's city names the zone of its dates
      expect(String(structured(first).date_checkin_formatted)).toMatch(/America\/Los_Angeles|PST|PDT/);
      expect(entry).toMatchObject({ state: 'done', result: uuid });

      const second = await s.call('reserve', tripArgs());
      expect(structured(second)).toMatchObject({ reservation_uuid: structured(first).reservation_uuid, resumed: true, idempotency_key: entry.key });
      expect(await reservations(sb, alias)).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  test('after the replay window, a reservation the customer already holds for the same car and dates is not booked again', async ({ sb, alias, serve, tripArgs }) => {
    const s = await serve({ CARRENTAL_REPLAY_WINDOW: '0' });
    try {
      const first = await s.call('reserve', tripArgs());
      expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
      await admin(sb, 'DELETE', '/requests');
      const second = await s.call('reserve', tripArgs());
      expect(structured(second)).toMatchObject({ reservation_uuid: structured(first).reservation_uuid, sent: false, resumed: false });
      expect(structured(second).note).toBe(
        'This customer already holds a reservation of this car for these dates (this same request, made before), with the options it was made with: nothing was sent. ' +
          'To change its options, cancel it and reserve again. An unpaid reservation is not a paid booking and not a guaranteed hold.',
      );
      expect(structured(second).next_step).toBe(`call get_trip with ${structured(first).reservation_uuid} for its payment status, or payment_link to hand over paying it`);
      expect(await requests(sb, 'createReservation')).toEqual([]);
      expect(await reservations(sb, alias)).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  test('a definitive refusal is a tool error without a resume step, and leaves nothing pending', async ({ serve, journal, tripArgs }) => {
    const s = await serve();
    try {
      const r = await s.call('reserve', { ...tripArgs(), promo_code: 'NO-SUCH-PROMO' });
      expect(r.isError).toBe(true);
      expect(errorOf(r)).toMatchObject({ error_code: 'promo_code_not_found' });
      expect(String(errorOf(r).next_step ?? '')).not.toContain('idempotency key');
      expect(await journal().list()).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});

describe('MCP cancel_reservation', () => {
  test('an unknown outcome keeps the key and says so; the same call again finishes it with that key', async ({ sb, serve, journal, unfinished, booked }) => {
    const s = await serve();
    try {
      const uuid = await booked(s);
      await faults(sb, { kind: 'error', operation: 'cancelReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
      const failed = await s.call('cancel_reservation', { reservation_uuid: uuid });
      expect(failed.isError).toBe(true);
      const [entry] = await unfinished();
      expect(entry).toMatchObject({ operation: 'cancelReservation', target: uuid, request: { uuid }, attempts: 3 });
      expect(errorOf(failed).next_step).toBe(
        `the outcome is unknown; call cancel_reservation again with the same arguments: it reuses idempotency key ${entry.key}, so it cannot cancel twice`,
      );

      const again = await s.call('cancel_reservation', { reservation_uuid: uuid });
      expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
      expect(structured(again)).toMatchObject({
        reservation_uuid: uuid,
        cancelled: true,
        sent: true,
        resumed: true,
        idempotency_key: entry.key,
        note: 'Cancelled. cancellation_outcome says what happens to the deposit hold and any refund; cancelled does not mean money was returned.',
      });
      expect((await journal().list()).find((e) => e.target === uuid)).toMatchObject({ state: 'done', result: 'OK' });
      expect((structured(again).reservation as { status: string }).status).toBe('cancelled');
      expect(new Set((await requests(sb, 'cancelReservation')).map((q) => q.idempotency_key))).toEqual(new Set([entry.key]));
      expect(await unfinished()).toEqual([]);
    } finally {
      await s.stop();
    }
  });

  test('an already cancelled reservation: nothing is sent', async ({ sb, serve, booked }) => {
    const s = await serve({ CARRENTAL_REPLAY_WINDOW: '0' });
    try {
      const uuid = await booked(s);
      const first = await s.call('cancel_reservation', { reservation_uuid: uuid });
      expect(structured(first)).toMatchObject({ cancelled: true, sent: true, resumed: false });
      await admin(sb, 'DELETE', '/requests');
      const second = await s.call('cancel_reservation', { reservation_uuid: uuid });
      expect(structured(second)).toMatchObject({ reservation_uuid: uuid, cancelled: true, sent: false, resumed: false, note: 'The reservation was already cancelled: nothing was sent.' });
      expect(await requests(sb, 'cancelReservation')).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});

describe('MCP reserve: what counts as already held', () => {
  test('another car, other dates or a cancelled reservation of the same car are not the same request: each is booked', async ({ sb, alias, serve, tripArgs }) => {
    const s = await serve({ CARRENTAL_REPLAY_WINDOW: '0' });
    try {
      const [other] = (await freeCars(sb, 2)).filter((a) => a !== alias);
      const first = await s.call('reserve', tripArgs());
      expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
      const otherCar = await s.call('reserve', { ...tripArgs(), car_alias: other });
      expect(structured(otherCar)).toMatchObject({ sent: true, car_alias: other });
      const otherDates = await s.call('reserve', { ...tripArgs(), date_checkout: '2026-12-05T10:00' });
      expect(structured(otherDates)).toMatchObject({ sent: true });
      // the customer may hold five active reservations: make room
      expect((await s.call('cancel_reservation', { reservation_uuid: structured(otherCar).reservation_uuid })).isError).toBeFalsy();
      const otherStart = await s.call('reserve', { ...tripArgs(), date_checkin: '2026-11-30T10:00' });
      expect(otherStart.isError, JSON.stringify(otherStart.content)).toBeFalsy();
      expect(structured(otherStart)).toMatchObject({ sent: true });
      const cancelled = await s.call('cancel_reservation', { reservation_uuid: structured(first).reservation_uuid });
      expect(cancelled.isError, JSON.stringify(cancelled.content)).toBeFalsy();
      const again = await s.call('reserve', tripArgs());
      expect(structured(again)).toMatchObject({ sent: true });
      expect(structured(again).reservation_uuid).not.toBe(structured(first).reservation_uuid);
    } finally {
      await s.stop();
    }
  });
});

describe('MCP write path: failures', () => {
  test('a cancel whose reservation cannot be read afterwards still reports the cancellation', async ({ serve, tripArgs }) => {
    const s = await serve();
    try {
      const r = await s.call('reserve', tripArgs());
      const uuid = structured(r).reservation_uuid as string;
      let reads = 0;
      const original = Api.prototype.reservation;
      vi.spyOn(Api.prototype, 'reservation').mockImplementation(function (this: Api, ...args: Parameters<Api['reservation']>) {
        if (++reads === 2) return Promise.reject(new CliError('unavailable', 'read failed'));
        return original.apply(this, args);
      });
      const c = await s.call('cancel_reservation', { reservation_uuid: uuid });
      expect(c.isError, JSON.stringify(c.content)).toBeFalsy();
      expect(structured(c)).toMatchObject({
        cancelled: true,
        sent: true,
        reservation: null,
        note: 'Cancelled, but the reservation could not be read afterwards: call get_trip for the cancellation outcome.',
      });
    } finally {
      await s.stop();
    }
  });

  test('an unexpected failure (not a CliError) is a tool error, logged with its stack on the server\'s stderr', async ({ serve, tripArgs }) => {
    vi.spyOn(JournaledWrite.prototype, 'run').mockRejectedValueOnce(new Error('boom'));
    const s = await serve();
    let stderr = '';
    try {
      const r = await s.call('reserve', tripArgs());
      expect(r.isError).toBe(true);
      expect((r.content[0] as { text: string }).text).toBe('error: unexpected failure: boom');
    } finally {
      stderr = await s.stop();
    }
    expect(stderr).toMatch(/carrental mcp: reserve failed unexpectedly: Error: boom\n\s+at /);
  });

  test('a failure before anything was sent is not told to resume with a key', async ({ sb, serve, tripArgs }) => {
    vi.spyOn(Api.prototype, 'trips').mockRejectedValueOnce(new CliError('unavailable', 'trips unreachable'));
    const s = await serve();
    try {
      const r = await s.call('reserve', tripArgs());
      expect(r.isError).toBe(true);
      expect(errorOf(r).message).toBe('trips unreachable');
      expect(String(errorOf(r).next_step ?? '')).not.toContain('idempotency key');
      expect(await requests(sb, 'createReservation')).toEqual([]);
    } finally {
      await s.stop();
    }
  });

  test("the car's zone is best effort: a failed car read after booking is not retried, and the booking is reported", async ({ sb, serve, tripArgs }) => {
    const s = await serve();
    try {
      await faults(sb, { kind: 'error', operation: 'getCar', code: 'rate_limit_unavailable', times: 1 }); // 503: a read would retry it
      const r = await s.call('reserve', tripArgs());
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(structured(r)).toMatchObject({ sent: true, status: 'new' });
      expect(await requests(sb, 'getCar')).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  test('a CliError is not logged as unexpected, and a usage error is not told to resume', async ({ serve, tripArgs }) => {
    vi.spyOn(JournaledWrite.prototype, 'run').mockRejectedValueOnce(new CliError('usage', 'bad input'));
    const s = await serve();
    let stderr = '';
    try {
      const r = await s.call('reserve', tripArgs());
      expect(r.isError).toBe(true);
      expect(String(errorOf(r).next_step)).not.toContain('idempotency key');
    } finally {
      stderr = await s.stop();
    }
    expect(stderr).not.toContain('failed unexpectedly');
  });

  test('the tools check an idempotency key and a uuid themselves too, naming the argument, before any request', async ({ tripArgs }) => {
    const reserve = TOOLS.find((t) => t.name === 'reserve')!;
    const cancel = TOOLS.find((t) => t.name === 'cancel_reservation')!;
    await expect(reserve.run({ ...tripArgs(), idempotency_key: 'short' } as never, {} as never)).rejects.toThrow(
      'idempotency_key must be 16 to 128 printable ASCII characters, without spaces at either end',
    );
    await expect(cancel.run({ reservation_uuid: 'not-a-uuid' } as never, {} as never)).rejects.toThrow(/reservation_uuid/);
  });
});
