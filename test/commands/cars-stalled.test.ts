// A spec-valid answer a random mock gives: has_more true on an empty page. The walk cannot
// move its offset, so `cars --all` and `api --paginate` stop there, print what arrived, say
// on stderr that the list may be incomplete, and exit 0 (found by .ci/prism).
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

let stub: StubServer;
let home: TestHome;
beforeAll(async () => {
  stub = await StubServer.start((req) => {
    const offset = Number(req.query.get('offset') ?? 0);
    const cars = offset === 0 ? [stubCar('kia-soul-1')] : [];
    return { status: 200, json: { data: { cars, total: 7, has_more: true } } };
  });
});
afterAll(() => stub.close());
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

it.each([[['cars', '--all', '--json']], [['cars', '--all']], [['api', 'GET', '/cars?limit=1', '--paginate', '--anonymous']]])('%j stops at the empty page, warns, exit 0', async (args) => {
  const r = await runCommand(['--base-url', stub.baseUrl, ...args], { env: home.env() });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('kia-soul-1');
  expect(r.stderr).toContain('the server said has_more at offset 1 but sent nothing, so the walk stops there');
  // the empty page is the last one asked for: nothing past it
  const offsets = stub.requests.map((q) => Number(q.query.get('offset') ?? 0));
  expect(Math.max(...offsets)).toBe(1);
  stub.requests.length = 0;
});
