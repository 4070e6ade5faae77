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
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { InStream } from '../../src/cli/context.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { Journal } from '../../src/store/journal.js';
import { FakeOut, TestHome } from '../helpers/cli.js';
import { FROM, SANDBOX_NOW, TO, admin, faults, freeCars, requests, reservations, resetSandbox } from '../booking/sandbox.js';

let sb: RunningSandbox;
let home: TestHome;
let alias: string;

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
afterEach(() => home.cleanup());

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

async function serve(env: NodeJS.ProcessEnv = {}): Promise<Session> {
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
}

const journal = () => new Journal({ path: join(home.dir, 'state', 'journal.json') });
const unfinished = async () => (await journal().list()).filter((e) => e.state === 'pending');
const structured = (r: CallToolResult) => r.structuredContent as Record<string, unknown>;
const errorOf = (r: CallToolResult) => JSON.parse((r.content[1] as { text: string }).text).error as Record<string, unknown>;
const tripArgs = () => ({ car_alias: alias, date_checkin: FROM, date_checkout: TO });

describe('MCP reserve', () => {
  it('an unknown outcome keeps the key and says how to finish; the same call again reuses it and books once', async () => {
    await faults(sb, { kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    const s = await serve();
    try {
      const failed = await s.call('reserve', tripArgs());
      expect(failed.isError).toBe(true);
      const [entry] = await unfinished();
      expect(entry).toMatchObject({ operation: 'createReservation', target: alias });
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

  it('books once, and the same call again within the replay window replays the key: the same uuid, one reservation', async () => {
    const s = await serve();
    try {
      const first = await s.call('reserve', tripArgs());
      expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
      const [entry] = await journal().list();
      expect(structured(first)).toMatchObject({ sent: true, resumed: false, idempotency_key: entry.key, status: 'new', car_alias: alias });
      expect(entry.state).toBe('done');

      const second = await s.call('reserve', tripArgs());
      expect(structured(second)).toMatchObject({ reservation_uuid: structured(first).reservation_uuid, resumed: true, idempotency_key: entry.key });
      expect(await reservations(sb, alias)).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  it('after the replay window, a reservation the customer already holds for the same car and dates is not booked again', async () => {
    const s = await serve({ CARRENTAL_REPLAY_WINDOW: '0' });
    try {
      const first = await s.call('reserve', tripArgs());
      expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
      await admin(sb, 'DELETE', '/requests');
      const second = await s.call('reserve', tripArgs());
      expect(structured(second)).toMatchObject({ reservation_uuid: structured(first).reservation_uuid, sent: false, resumed: false });
      expect(structured(second).note).toMatch(/^This customer already holds a reservation of this car for these dates/);
      expect(await requests(sb, 'createReservation')).toEqual([]);
      expect(await reservations(sb, alias)).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  it('a definitive refusal is a tool error without a resume step, and leaves nothing pending', async () => {
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
  async function booked(s: Session): Promise<string> {
    const r = await s.call('reserve', tripArgs());
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    await admin(sb, 'DELETE', '/requests');
    return structured(r).reservation_uuid as string;
  }

  it('an unknown outcome keeps the key and says so; the same call again finishes it with that key', async () => {
    const s = await serve();
    try {
      const uuid = await booked(s);
      await faults(sb, { kind: 'error', operation: 'cancelReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
      const failed = await s.call('cancel_reservation', { reservation_uuid: uuid });
      expect(failed.isError).toBe(true);
      const [entry] = await unfinished();
      expect(entry).toMatchObject({ operation: 'cancelReservation', target: uuid });
      expect(errorOf(failed).next_step).toBe(
        `the outcome is unknown; call cancel_reservation again with the same arguments: it reuses idempotency key ${entry.key}, so it cannot cancel twice`,
      );

      const again = await s.call('cancel_reservation', { reservation_uuid: uuid });
      expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
      expect(structured(again)).toMatchObject({ reservation_uuid: uuid, cancelled: true, sent: true, resumed: true, idempotency_key: entry.key });
      expect((structured(again).reservation as { status: string }).status).toBe('cancelled');
      expect(new Set((await requests(sb, 'cancelReservation')).map((q) => q.idempotency_key))).toEqual(new Set([entry.key]));
      expect(await unfinished()).toEqual([]);
    } finally {
      await s.stop();
    }
  });

  it('an already cancelled reservation: nothing is sent', async () => {
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
