// `doctor` on the networks of issue 24: which route the base URL takes (a proxy, or direct
// and why), a base URL that answers through a redirect (a finding, with the base URL to
// configure), and one that redirects to another origin (not followed: the base URL to
// configure is in the failure).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../src/commands/doctor.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { serveHttp, startProxy, type Listening } from '../helpers/network.js';
import { stubCar } from '../helpers/stub-server.js';

let home: TestHome;
const closers: Array<() => Promise<void> | void> = [];
beforeEach(() => {
  home = new TestHome();
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  home.cleanup();
});

/** A deployment whose API lives under /v1: `/old/v1/...` answers 308 to it, `/gone/...` to another origin. */
async function deployment(otherOrigin = 'http://127.0.0.1:9/v1'): Promise<Listening> {
  const l = await serveHttp((req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/old/')) return void res.writeHead(308, { location: url.slice(4) }).end();
    if (url.startsWith('/gone/v1/')) return void res.writeHead(301, { location: `${otherOrigin}/${url.slice(9)}` }).end();
    if (url.startsWith('/v1/cars')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { cars: [stubCar('car-1')], total: 1, has_more: false } }));
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found', error_code: 'not_found' }));
  });
  closers.push(() => l.close());
  return l;
}

async function doctor(baseUrl: string, env: NodeJS.ProcessEnv = {}) {
  const r = await runCommand(['--base-url', baseUrl, 'doctor', '--json'], { env: home.env(env), sleep: async () => {} });
  const report = JSON.parse(r.stdout) as DoctorReport;
  return { ...r, report, check: (name: string) => report.checks.find((c) => c.name === name) };
}

describe('doctor on the network', () => {
  it('a base URL answering through a same-origin redirect: followed, and a finding naming the base URL to configure', async () => {
    const d = await deployment();
    const { report, check } = await doctor(`http://127.0.0.1:${d.port}/old/v1`);
    expect(check('reachable')?.status).toBe('ok');
    expect(check('redirect')).toEqual({
      name: 'redirect',
      status: 'warn',
      detail: `GET /cars was redirected to http://127.0.0.1:${d.port}/v1/cars?limit=1: set the base URL to http://127.0.0.1:${d.port}/v1 (\`carrental config set base_url http://127.0.0.1:${d.port}/v1\`)`,
    });
    expect(report.operations.find((o) => o.id === 'listCars')?.status).toBe('ok');
  });

  it('a redirect to another origin is not followed: the failure names the Location and the base URL to configure', async () => {
    const other = await serveHttp((_req, res) => res.writeHead(500).end());
    closers.push(() => other.close());
    const d = await deployment(`http://127.0.0.1:${other.port}/v1`);
    const { check } = await doctor(`http://127.0.0.1:${d.port}/gone/v1`);
    expect(check('reachable')?.status).toBe('fail');
    expect(check('reachable')?.detail).toBe(
      `GET /cars was redirected (HTTP 301) to http://127.0.0.1:${other.port}/v1/cars?limit=1: carrental follows a redirect only within http://127.0.0.1:${d.port}, so the API key never goes to another origin (check the base URL; if the API moved, use its new base URL: \`carrental config set base_url http://127.0.0.1:${other.port}/v1\` (or --base-url))`,
    );
  });

  it('says which route the base URL takes: through the proxy (credentials masked), or direct and why', async () => {
    const d = await deployment();
    const proxy = await startProxy({ httpPort: d.port, credentials: 'ci:pa55' });
    closers.push(() => proxy.close());
    const env = { HTTP_PROXY: `http://ci:pa55@127.0.0.1:${proxy.port}` };
    const through = await doctor('http://api.internal.test/v1', env);
    expect(through.check('network')).toEqual({ name: 'network', status: 'ok', detail: `through proxy http://ci:***@127.0.0.1:${proxy.port} (HTTP_PROXY)` });
    expect(through.check('reachable')?.status).toBe('ok');
    expect(proxy.seen[0].line).toBe('GET http://api.internal.test/v1/cars?limit=1');
    expect(through.stdout).not.toContain('pa55');

    expect((await doctor(`http://127.0.0.1:${d.port}/v1`, env)).check('network')?.detail).toBe('direct (a loopback address never goes through a proxy)');
    expect((await doctor(`http://127.0.0.1:${d.port}/v1`)).check('network')?.detail).toBe('direct');
  });
});
