// Issue 29: a value put in a URL path can never change the route. `.`, `..`, `%2e%2e`,
// `a/b`, `?` and `#` go through every command and MCP tool that puts a value in a path,
// against a loopback server that records the raw request line (before any URL
// normalisation): each is refused before anything is sent, or sent as one segment of the
// route the command names.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { FakeOut, runCommand, TestHome } from '../helpers/cli.js';
import { PipeTransport } from '../helpers/mcp-pipe.js';
import { stubCar } from '../helpers/stub-server.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const VALUES = ['.', '..', '%2e%2e', 'a/b', '?', '#'];
/** Odd but harmless: sent, each as exactly one encoded segment. */
const PASSED = ['...', '.a', 'a.', '%41', 'a;b'];
const DATES = ['--from', '2026-12-01T10:00', '--to', '2026-12-04T10:00'];
const now = () => new Date('2026-11-01T12:00:00Z');

/** The API's routes; `{}` is one non-empty segment. */
const ROUTES = [
  '/v1/cars',
  '/v1/cars/{}',
  '/v1/reservation/quote',
  '/v1/my/trips',
  '/v1/my/reservation/{}',
  '/v1/my/reservation/{}/invoices',
  '/v1/my/billing/invoice/{}',
  '/v1/my/reservation/{}/payment-link',
  '/v1/my/reservation/{}/extension-link',
  '/v1/my/billing/reservation/{}/extension/price',
].map((r) => new RegExp(`^${r.replace('{}', '(?<seg>[^/?#]+)')}$`));

let server: Server;
let baseUrl = '';
let home: TestHome;
/** Raw request lines, as received: `GET /v1/cars/x`. */
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const seg = decodeURIComponent(path.split('/')[3] ?? '');
      const data = path.startsWith('/v1/cars/') ? stubCar(seg) : path === '/v1/my/trips' ? { active: [], history: [] } : undefined;
      res.writeHead(data ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(data ? { data } : { error: 'Not found', error_code: 'not_found' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  home = new TestHome();
  seen.length = 0;
});
afterEach(() => home.cleanup());

/** Every request line names a route of the API, with the value (if any) as one segment. */
function expectRoutesKept(value: string) {
  for (const line of seen) {
    const [, target] = line.split(' ');
    const path = target.split('?')[0];
    const match = ROUTES.map((r) => r.exec(path)).find(Boolean);
    expect(match, line).toBeTruthy();
    const seg = match!.groups?.seg;
    if (seg !== undefined) {
      expect(['.', '..'], line).not.toContain(decodeURIComponent(seg));
      if (decodeURIComponent(seg) !== value) expect(seg, line).not.toMatch(/^(\.|%2e)+$/i);
    }
  }
}

const COMMANDS: Array<[string, (v: string) => string[]]> = [
  ['car', (v) => ['car', v]],
  ['quote', (v) => ['quote', v, ...DATES]],
  ['reserve', (v) => ['reserve', v, ...DATES, '-y']],
  ['trips', (v) => ['trips', v]],
  ['invoices', (v) => ['invoices', v]],
  ['invoice', (v) => ['invoice', v]],
  ['pay-link', (v) => ['pay-link', v]],
  ['extend-link', (v) => ['extend-link', v, '--to', '2026-12-06T10:00']],
  ['cancel', (v) => ['cancel', v, '-y']],
];

describe('commands: a path parameter never changes the route', () => {
  describe.each(COMMANDS)('%s', (_name, argv) => {
    it.each(VALUES)('%j is refused before anything is sent', async (value) => {
      const r = await runCommand(['--base-url', baseUrl, ...argv(value)], { now, sleep: async () => {}, env: home.env({ CARRENTAL_API_KEY: KEY }) });
      // `trips <prefix>` may list the trips to resolve a prefix: that route is kept
      expectRoutesKept(value);
      expect(seen.filter((l) => !l.endsWith(' /v1/my/trips')), r.stderr).toEqual([]);
      expect(r.code, r.stderr).toBe(r.code === 4 ? 4 : 2);
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    });
  });

  it.each(PASSED)('car %j is sent as one encoded segment', async (value) => {
    const r = await runCommand(['--base-url', baseUrl, 'car', value], { now, env: home.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toEqual([`GET /v1/cars/${encodeURIComponent(value)}`]);
  });

  it.each(['.', '..', '%2e%2e', '%2E.'])('api GET /cars/%s/x is refused: the path would reach another route', async (value) => {
    const r = await runCommand(['--base-url', baseUrl, 'api', 'GET', `/cars/${value}/x`], { now, env: home.env({ CARRENTAL_API_KEY: KEY }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('segment: it would reach another route than the one named');
    expect(seen).toEqual([]);
  });
});

const TOOLS: Array<[string, (v: string) => Record<string, unknown>]> = [
  ['get_car', (v) => ({ car_alias: v })],
  ['quote', (v) => ({ car_alias: v, date_checkin: '2026-12-01T10:00', date_checkout: '2026-12-04T10:00' })],
  ['reserve', (v) => ({ car_alias: v, date_checkin: '2026-12-01T10:00', date_checkout: '2026-12-04T10:00' })],
  ['get_trip', (v) => ({ reservation_uuid: v })],
  ['list_invoices', (v) => ({ reservation_uuid: v })],
  ['get_invoice', (v) => ({ invoice_uuid: v })],
  ['payment_link', (v) => ({ reservation_uuid: v })],
  ['extension_price', (v) => ({ reservation_uuid: v, new_checkout: '2026-12-06T10:00' })],
  ['extension_link', (v) => ({ reservation_uuid: v })],
  ['cancel_reservation', (v) => ({ reservation_uuid: v })],
];

describe('MCP tools: a path parameter never changes the route', () => {
  it.each(TOOLS)('%s', async (tool, args) => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new FakeOut(false);
    const exited = runCli(['--base-url', baseUrl, 'mcp', '--allow-booking'], {
      io: { stdin: stdin as unknown as InStream, stdout: stdout as never, stderr },
      env: home.env({ CARRENTAL_API_KEY: KEY }),
      now,
      sleep: async () => {},
    });
    const client = new Client({ name: 'path-test', version: '1.0.0' });
    await client.connect(new PipeTransport(stdin, stdout));
    try {
      for (const value of VALUES) {
        seen.length = 0;
        const r = (await client.callTool({ name: tool, arguments: args(value) })) as CallToolResult;
        expect(r.isError, `${tool} ${value}`).toBe(true);
        expectRoutesKept(value);
        expect(seen, `${tool} ${value}`).toEqual([]);
      }
    } finally {
      await client.close();
      expect(await exited).toBe(0);
    }
  });
});
