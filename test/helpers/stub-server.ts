// A scripted loopback HTTP server for tests of the request sender: it records every
// request (method, path, headers, body, socket) and answers with what the test says.
// Anything the test did not script answers 500, so a stray request is visible.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test as base } from 'vitest';
import { TestHome } from './cli.js';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** The client's port: the same port on two requests means the connection was reused. */
  remotePort: number;
}

export interface StubResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Serialised as JSON. */
  json?: unknown;
  /** Sent as is. */
  raw?: string;
  delayMs?: number;
  /** Drop the connection without answering. */
  destroy?: boolean;
}

export type StubHandler = (req: Recorded, index: number) => StubResponse | Promise<StubResponse>;

export class StubServer {
  readonly requests: Recorded[] = [];
  baseUrl = '';
  private constructor(
    private readonly server: Server,
    public handler: StubHandler,
  ) {}

  static async start(handler: StubHandler = () => ({ status: 500, json: { error: 'not scripted' } })): Promise<StubServer> {
    let stub!: StubServer;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const url = new URL(req.url ?? '/', 'http://stub');
        const rec: Recorded = {
          method: req.method ?? 'GET',
          path: url.pathname.replace(/^\/v1/, ''),
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          remotePort: req.socket.remotePort ?? 0,
        };
        stub.requests.push(rec);
        const answer = await stub.handler(rec, stub.requests.length - 1);
        if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
        if (answer.destroy) {
          req.socket.destroy();
          return;
        }
        const body = answer.raw ?? (answer.json === undefined ? '' : JSON.stringify(answer.json));
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
        res.end(body);
      });
    });
    stub = new StubServer(server, handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stub.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return stub;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A minimal car as the API describes it (every required field). */
export function stubCar(alias: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    car_alias: alias,
    name: `Car ${alias}`,
    city: 'la',
    prices: {
      car: {
        miles_included: 200,
        min_age: 21,
        min_age_without_young_driver_fee: 25,
        price_delivery: 5000,
        price_deposit: 25000,
        price_extra_mile: 45,
        price_unlimited_mileage: 1500,
      },
      extras: [{ item_type: 'child_seat', price_day: 1000, title: 'Child seat' }],
      protection: { minimum: 1200, standard: 2500 },
      trip_fee: 1999,
    },
    ...extra,
  };
}

/**
 * Fixtures (test.extend): `stub`, one StubServer per file (answering 500 until a test
 * scripts it), whose request log is emptied before each test; `home`, a fresh TestHome
 * per test (removed after it).
 */
export const test = base
  .extend('stub', { scope: 'file' }, async ({}, { onCleanup }) => {
    const stub = await StubServer.start();
    onCleanup(() => stub.close());
    return stub;
  })
  .extend('home', { auto: true }, async ({ stub }, { onCleanup }) => {
    stub.requests.length = 0;
    const home = new TestHome();
    onCleanup(() => home.cleanup());
    return home;
  });
