// `cars --all` walks its pages over one kept-alive connection (issue 24): the real command,
// in-process, against a loopback server that serves several pages and counts the TCP
// connections it accepts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import { stubCar } from '../helpers/stub-server.js';

const TOTAL = 7;
const PAGE = 2;

let server: Server;
let connections: number;
let asked: string[];
let home: TestHome;
const sockets = new Set<Socket>();

beforeEach(async () => {
  home = new TestHome();
  connections = 0;
  asked = [];
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    asked.push(url.pathname + url.search);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? PAGE);
    const cars = Array.from({ length: Math.max(0, Math.min(limit, TOTAL - offset)) }, (_, i) => stubCar(`car-${offset + i}`));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { cars, total: TOTAL, has_more: offset + cars.length < TOTAL } }));
  });
  server.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterEach(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
  home.cleanup();
});

it('cars --all sends every page over one connection', async () => {
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const r = await runCommand(['--base-url', base, 'cars', '--all', '--city', 'la', '--limit', String(PAGE), '--json'], { env: home.env() });
  expect(r.code, r.stderr).toBe(0);
  expect((JSON.parse(r.stdout) as { cars: Array<{ car_alias: string }> }).cars.map((c) => c.car_alias)).toEqual(Array.from({ length: TOTAL }, (_, i) => `car-${i}`));
  // four pages, so four requests: had any gone on a connection of its own, there would be more
  expect(asked.filter((u) => u.startsWith('/v1/cars'))).toHaveLength(4);
  console.log(asked, connections);
  expect(connections).toBe(1);
});
