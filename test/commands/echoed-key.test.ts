// Issue 29: a server that echoes the caller's key in a *successful* answer. A loopback proxy
// in front of the sandbox appends the active key to every free-text string of every 2xx
// JSON answer (names, titles, descriptions, links, messages; ids, dates and enum values
// stay as they are so that the answer still parses), and every command, in every output
// mode, must print the key nowhere: masking happens once, on the way out (src/cmdkit/masked-io.ts).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { FakeOut, runCommand, TestHome } from '../helpers/cli.js';
import { PipeTransport } from '../helpers/mcp-pipe.js';
import { rawGet } from '../helpers/raw-api.js';
import { SANDBOX_NOW, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
let proxy: Server;
let proxyUrl = '';
let key = '';
let alias = '';
/** Free cars, one per output mode, so that each mode's `reserve` books a car of its own. */
let free: string[] = [];
let trip = '';
let invoice = '';
/** Strings the proxy put the key in since the test began. */
let echoed = 0;

/** What the proxy leaves alone: ids, dates, times, numbers as text, enum-like words. */
const STRUCTURAL = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^[\d:.TZ+ -]+$/,
  /^[a-z0-9_-]+$/,
  /^[A-Z0-9_]+$/,
];

function echoKey(value: unknown): unknown {
  if (typeof value === 'string') {
    if (STRUCTURAL.some((re) => re.test(value))) return value;
    // a link keeps working as a link: the key rides in its fragment
    echoed += 1;
    return /^https?:\/\//.test(value) ? `${value}#${key}` : `${value} ${key}`;
  }
  if (Array.isArray(value)) return value.map(echoKey);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echoKey(v)]));
  return value;
}

beforeAll(async () => {
  sb = await TestSandbox.start();
  key = sb.keys.booking_write;
  const upstream = new URL(sb.baseUrl);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          let text = Buffer.concat(body).toString('utf8');
          const status = answer.statusCode ?? 502;
          if (status < 300 && /json/.test(String(answer.headers['content-type']))) text = JSON.stringify(echoKey(JSON.parse(text)));
          const headers = { ...answer.headers };
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          res.writeHead(status, headers);
          res.end(text);
        });
      });
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;

  const cars = (await sb.api<{ cars: Array<{ car_alias: string; is_available: boolean }> }>('/cars?city=la&limit=50&date_from=2026-11-20T10:00&date_to=2026-11-23T10:00')).cars;
  free = cars.filter((c) => c.is_available).map((c) => c.car_alias);
  alias = free[0];
  const trips = (await rawGet(sb.baseUrl, '/my/trips', key)).body.data;
  for (const t of [...trips.active, ...trips.history]) {
    const invoices = (await rawGet(sb.baseUrl, `/my/reservation/${t.uuid}/invoices`, key)).body as Array<{ id: string }>;
    if (!trip && trips.active.includes(t)) trip = t.uuid;
    if (!invoice && Array.isArray(invoices) && invoices.length > 0) invoice = invoices[0].id;
  }
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await sb.close();
});
beforeEach(async () => {
  home = new TestHome();
  // the fixtures again (the same uuids): each `reserve` counts against the customer's five
  await sb.admin('POST', '/reset');
  await sb.reset();
  echoed = 0;
});
afterEach(() => home.cleanup());

const DATES = ['--from', '2026-11-20T10:00', '--to', '2026-11-23T10:00'];
const commands = (mode: number): string[][] => [
  ['cars', '--city', 'la', '--limit', '5'],
  ['car', alias],
  ['quote', alias, ...DATES],
  ['trips'],
  ['trips', trip],
  ['invoices', trip],
  ['invoice', invoice],
  ['profile'],
  ['verification'],
  ['cards'],
  ['card-link'],
  ['pay-link', trip],
  ['extend-link', trip, '--to', '2026-12-30T10:00'],
  ['auth', 'status'],
  ['status'],
  ['reserve', free[mode + 1], ...DATES, '-y'],
  ['api', 'GET', '/my/profile'],
];

const LABELS = ['cars', 'car', 'quote', 'trips', 'trips <uuid>', 'invoices', 'invoice', 'profile', 'verification', 'cards', 'card-link', 'pay-link', 'extend-link', 'auth status', 'status', 'reserve', 'api'];

const ENUMS_ONLY = ['verification', 'cards', 'quote'];

describe('a key echoed in every free-text field of a successful answer is printed nowhere', () => {
  describe.each([
    ['plain', [] as string[], false, 0],
    ['terminal', [] as string[], true, 1],
    ['--json', ['--json'], false, 2],
    ['--jq', ['--jq', '.'], false, 3],
    ['--debug', ['--debug'], false, 4],
  ])('%s', (_mode, flags, tty, mode) => {
    it.each(LABELS.map((label, i) => [label, i] as const))('%s', async (_label, i) => {
      const r = await runCommand(['--base-url', proxyUrl, ...flags, ...commands(mode)[i]], {
        now: () => SANDBOX_NOW,
        tty,
        env: home.env({ CARRENTAL_API_KEY: key, NO_COLOR: '1' }),
      });
      // the success path, really taken
      expect(r.code, r.stderr).toBe(0);
      const all = r.stdout + r.stderr;
      expect(all).not.toContain(key);
      expect(all).not.toContain(key.slice(4, -4));
      // not a vacuous pass: the answers it read did carry the key
      // (verification, cards and a quote hold ids, amounts and enum values only)
      if (!ENUMS_ONLY.includes(LABELS[i])) expect(echoed).toBeGreaterThan(0);
    });
  });
});

describe('the MCP server, against the same server', () => {
  it('no tool result and no log line holds the key', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new FakeOut(false);
    let protocol = '';
    stdout.on('data', (c: Buffer) => (protocol += c.toString()));
    const exited = runCli(['--base-url', proxyUrl, 'mcp'], {
      io: { stdin: stdin as unknown as InStream, stdout: stdout as never, stderr },
      env: home.env({ CARRENTAL_API_KEY: key }),
      now: () => SANDBOX_NOW,
    });
    const client = new Client({ name: 'echo-test', version: '1.0.0' });
    await client.connect(new PipeTransport(stdin, stdout));
    for (const [name, args] of [['get_profile', {}], ['list_trips', {}], ['get_car', { car_alias: alias }], ['get_trip', { reservation_uuid: trip }]] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, `${name}: ${JSON.stringify(r.content).slice(0, 300)}`).toBeFalsy();
    }
    await client.close();
    expect(await exited).toBe(0);
    expect(echoed).toBeGreaterThan(0);
    for (const text of [protocol, stderr.text()]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(4, -4));
    }
  });
});
