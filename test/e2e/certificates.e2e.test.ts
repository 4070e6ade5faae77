// The built CLI against https servers whose certificates fail for a reason other than trust
// (issue 24): an expired leaf and a leaf for another host name, both from a private CA that
// is trusted the documented way (NODE_EXTRA_CA_CERTS, read by node at start: only a spawned
// run can show it, so the check gets past the CA and reaches the dates and the name).
import { request } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { makeCertificates, serveHttps, startProxy, type Listening } from '../helpers/network.js';
import { TestSandbox } from '../helpers/sandbox-admin.js';

const KEY = 'cus_0123456789abcdef0123456789abcdef';
let home: TestHome;
let loopback: ReturnType<typeof makeCertificates>;
let other: ReturnType<typeof makeCertificates>;
let expired: Listening;
let wrongName: Listening;
let requests = 0;

beforeAll(async () => {
  home = new TestHome();
  loopback = makeCertificates(['127.0.0.1']);
  other = makeCertificates(['example.test']);
  const answer = (_req: unknown, res: import('node:http').ServerResponse) => {
    requests += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [] }));
  };
  expired = await serveHttps(loopback.expired, answer);
  // a certificate for example.test, served on 127.0.0.1 and asked for as 127.0.0.1
  wrongName = await serveHttps(other.signed, answer);
});
afterAll(async () => {
  await expired?.close();
  await wrongName?.close();
  loopback?.cleanup();
  other?.cleanup();
  home?.cleanup();
});

describe('certificates that a trusted CA signed but that still fail', () => {
  it('an expired certificate: exit 1, says it expired and what to do, never "rerunning is safe"', async () => {
    const env = home.env({ NODE_EXTRA_CA_CERTS: loopback.caFile });
    const r = await runBin(['--base-url', `https://127.0.0.1:${expired.port}/v1`, 'cars'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: could not verify the TLS certificate of https://127.0.0.1:${expired.port} (GET /cars): the certificate has expired`);
    expect(r.stderr).toContain('the server must renew its certificate');
    expect(r.stderr).toContain("this machine's clock");
    expect(r.stderr).not.toMatch(/rerun/i);
    expect(requests).toBe(0);
  });

  it('a certificate for another name: exit 1, says so, names the certificate\'s names and the way forward', async () => {
    const env = home.env({ NODE_EXTRA_CA_CERTS: other.caFile });
    const r = await runBin(['--base-url', `https://127.0.0.1:${wrongName.port}/v1`, 'cars'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: could not verify the TLS certificate of https://127.0.0.1:${wrongName.port} (GET /cars): the certificate is for another host name (it names example.test)`);
    expect(r.stderr).toContain('base URL');
    expect(r.stderr).not.toContain('NODE_EXTRA_CA_CERTS');
    expect(r.stderr).not.toMatch(/rerun/i);
    expect(requests).toBe(0);
  });

  it('a journaled reserve whose booking POST meets an expired certificate: nothing sent, exit 1, no entry left pending', async () => {
    // The car and the quote are read through a good certificate (each answer closes its
    // connection); once the quote is answered, every new connection meets the expired one,
    // so the booking itself (after the journal entry is written) is the request that fails.
    const sb = await TestSandbox.start({ now: () => new Date(), statePath: join(home.dir, 'sb-state.json') });
    const sandboxUrl = new URL(sb.baseUrl);
    let quoted = false;
    const good = await serveHttps(loopback.signed, (req, res) => {
      const upstream = request({ host: '127.0.0.1', port: sandboxUrl.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        if (req.method === 'POST' && req.url?.endsWith('/reservation/quote')) quoted = true;
        res.writeHead(up.statusCode ?? 502, { ...up.headers, connection: 'close' });
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    const sockets = new Set<Socket>();
    const front = createServer((client) => {
      sockets.add(client);
      const upstream = connect(quoted ? expired.port : good.port, '127.0.0.1');
      sockets.add(upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    try {
      const alias = (await sb.api<{ cars: Array<{ car_alias: string }> }>('/cars')).cars[0].car_alias;
      const port = (front.address() as AddressInfo).port;
      const base = `https://127.0.0.1:${port}${sandboxUrl.pathname.replace(/\/+$/, '')}`;
      const env = home.env({ NODE_EXTRA_CA_CERTS: loopback.caFile, CARRENTAL_API_KEY: sb.keys.booking_write });
      await sb.clearRequests();
      const before = requests;
      const r = await runBin(['--base-url', base, 'reserve', alias, '--from', '+20d 10:00', '--days', '3', '--yes'], { env });
      expect(quoted).toBe(true);
      expect(r.stderr).toContain(`error: could not verify the TLS certificate of https://127.0.0.1:${port} (POST /my/reservation): the certificate has expired`);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(/rerun/i);
      expect(r.stderr).not.toMatch(/outcome .*unknown/i);
      expect(requests).toBe(before);
      expect((await sb.requests()).map((q) => `${q.method} ${q.path}`)).not.toContain('POST /v1/my/reservation');
      const pending = await runBin(['pending', '--json'], { env });
      expect(pending.code).toBe(0);
      expect(JSON.parse(pending.stdout)).toEqual([]);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => front.close(() => r()));
      await good.close();
      await sb.close();
    }
  });

  it('a reserve that meets an expired certificate at the first read: nothing sent, exit 1, no pending entry', async () => {
    const env = home.env({ NODE_EXTRA_CA_CERTS: loopback.caFile, CARRENTAL_API_KEY: KEY });
    const r = await runBin(['--base-url', `https://127.0.0.1:${expired.port}/v1`, 'reserve', 'some-car', '--from', '2030-01-10 10:00', '--days', '2', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the certificate has expired');
    expect(r.stderr).not.toMatch(/rerun/i);
    expect(r.stderr).not.toMatch(/outcome .*unknown/i);
    expect(requests).toBe(0);
    const pending = await runBin(['pending', '--json'], { env });
    expect(pending.code).toBe(0);
    expect(JSON.parse(pending.stdout)).toEqual([]);
  });
});

describe('an https proxy (TLS to the proxy, then a CONNECT tunnel)', () => {
  // one private CA for the proxy (127.0.0.1) and the API (api.internal.test)
  let certs: ReturnType<typeof makeCertificates>;
  let api: Listening;
  const seen: Array<string | undefined> = [];
  beforeAll(async () => {
    certs = makeCertificates(['api.internal.test', '127.0.0.1']);
    api = await serveHttps(certs.signed, (req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { email: 'a@example.com' } }));
    });
  });
  afterAll(async () => {
    await api?.close();
    certs?.cleanup();
  });

  it('works with the proxy\'s CA trusted; the proxy sees the CONNECT, never the key; --debug names it masked', async () => {
    const proxy = await startProxy({ tlsPort: api.port, credentials: 'ci:pa55', tls: certs.signed });
    try {
      const env = home.env({ HTTPS_PROXY: `https://ci:pa55@127.0.0.1:${proxy.port}`, NODE_EXTRA_CA_CERTS: certs.caFile, CARRENTAL_API_KEY: KEY });
      const r = await runBin(['--base-url', 'https://api.internal.test/v1', '--debug', 'api', 'GET', '/my/profile'], { env });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ data: { email: 'a@example.com' } });
      expect(seen).toEqual([`Bearer ${KEY}`]);
      expect(proxy.seen.map((x) => x.line)).toEqual(['CONNECT api.internal.test:443']);
      expect(proxy.tunnelled().toString('latin1')).not.toContain(KEY);
      expect(r.stderr).toContain(`* through proxy https://ci:***@127.0.0.1:${proxy.port} (HTTPS_PROXY)`);
      expect(r.stderr).not.toContain('pa55');
      // a proxy given by IP address has no name to send in the TLS handshake: none is sent
      // (node warns, DEP0123, when an IP address is given as the server name)
      expect(r.stderr).not.toMatch(/DEP0123|Warning|ServerName/);
    } finally {
      await proxy.close();
    }
  });

  it('a proxy whose own certificate has expired: exit 1, says so, nothing reaches the API, never "rerunning is safe"', async () => {
    const proxy = await startProxy({ tlsPort: api.port, tls: certs.expired });
    try {
      const before = seen.length;
      const env = home.env({ HTTPS_PROXY: `https://127.0.0.1:${proxy.port}`, NODE_EXTRA_CA_CERTS: certs.caFile, CARRENTAL_API_KEY: KEY });
      const r = await runBin(['--base-url', 'https://api.internal.test/v1', 'api', 'GET', '/my/profile'], { env });
      // node does not say which handshake failed (the proxy's or the API's): both are named
      expect(r.stderr).toContain(`error: could not verify the TLS certificate of https://api.internal.test or of the proxy https://127.0.0.1:${proxy.port} (HTTPS_PROXY) (GET /my/profile): the certificate has expired`);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(/rerun/i);
      expect(proxy.seen).toEqual([]);
      expect(seen.length).toBe(before);
    } finally {
      await proxy.close();
    }
  });
});
