// Issue 11: `cars --all` follows has_more exactly as the spec says ("the caller pages with
// offset until has_more is false") and never asks for a page past a has_more: false. The
// hard case for a walk that asks ahead: a slow server (so asking ahead would pay) whose
// catalog shrinks while it is walked, so that `total` promised pages that no longer exist.
// By default the walk asks one page at a time; `--parallel n` is the opt-in that may
// speculate (and says so in its help), pinned here as well so the difference is visible.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

const SIZE = 2;
let stub: StubServer;
let home: TestHome;
beforeAll(async () => {
  stub = await StubServer.start((req) => {
    const offset = Number(req.query.get('offset') ?? 0);
    const limit = Number(req.query.get('limit') ?? 50);
    // page 1 and 2 say the fleet has 20 cars; from the third request on it has 6
    const fleet = stub.requests.length <= 2 ? 20 : 6;
    const n = Math.max(0, Math.min(limit, fleet - offset));
    const cars = Array.from({ length: n }, (_, k) => stubCar(`car-${offset + k}`));
    return { status: 200, json: { data: { cars, total: fleet, has_more: offset + n < fleet } }, delayMs: 30 };
  });
});
afterAll(() => stub.close());
beforeEach(() => {
  home = new TestHome();
  stub.requests.length = 0;
});
afterEach(() => home.cleanup());

const offsets = () => stub.requests.map((q) => Number(q.query.get('offset')));

it.each([[['--json']], [[]]])('cars --all %j: one page at a time, nothing asked past has_more: false', async (extra) => {
  const r = await runCommand(['--base-url', stub.baseUrl, ...extra, 'cars', '--all', '--limit', String(SIZE)], { env: home.env() });
  expect(r.code, r.stderr).toBe(0);
  // the page at offset 4 said has_more: false (6 cars): it is the last one asked for
  expect(offsets()).toEqual([0, 2, 4]);
  expect(r.stdout).toContain('car-5');
  expect(r.stdout).not.toContain('car-6');
});

it('--parallel is the opt-in that asks ahead on a slow link (and may overshoot a shrinking catalog)', async () => {
  const r = await runCommand(['--base-url', stub.baseUrl, '--json', 'cars', '--all', '--limit', String(SIZE), '--parallel', '4'], { env: home.env() });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).cars).toHaveLength(6);
  expect(Math.max(...offsets())).toBeGreaterThan(4);
});

it('--parallel without --all is a usage error before any request', async () => {
  const r = await runCommand(['--base-url', stub.baseUrl, 'cars', '--parallel', '2'], { env: home.env() });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--parallel works with --all');
  expect(stub.requests).toHaveLength(0);
});
