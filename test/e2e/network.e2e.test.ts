// The built CLI behind a corporate-style network (issue 24): HTTPS_PROXY with a CONNECT
// tunnel to an API whose certificate comes from a private CA, trusted the documented way
// (NODE_EXTRA_CA_CERTS, read by node at start: only a spawned run can show it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { makeCertificates, serveHttps, startProxy, type Listening } from '../helpers/network.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
let home: TestHome;
let certs: ReturnType<typeof makeCertificates>;
let api: Listening;
let proxy: Awaited<ReturnType<typeof startProxy>>;
const seen: Array<{ url?: string; authorization?: string; encoding?: string }> = [];

beforeAll(async () => {
  home = new TestHome();
  certs = makeCertificates(['api.internal.test']);
  api = await serveHttps(certs.signed, (req, res) => {
    seen.push({ url: req.url, authorization: req.headers.authorization, encoding: req.headers['accept-encoding'] });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { email: 'a@example.com' } }));
  });
  proxy = await startProxy({ tlsPort: api.port, credentials: 'ci:pa55' });
});
afterAll(async () => {
  await proxy?.close();
  await api?.close();
  certs?.cleanup();
  home?.cleanup();
});

describe('behind a proxy, with a private CA', () => {
  it('a keyed request goes through the CONNECT tunnel and the key never shows in clear; --debug names the proxy', async () => {
    const env = home.env({ HTTPS_PROXY: `http://ci:pa55@127.0.0.1:${proxy.port}`, NODE_EXTRA_CA_CERTS: certs.caFile, CARRENTAL_API_KEY: KEY });
    const r = await runBin(['--base-url', 'https://api.internal.test/v1', '--debug', 'api', 'GET', '/my/profile'], { env });
    expect(r.stderr).not.toContain('Warning');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ data: { email: 'a@example.com' } });
    expect(seen).toEqual([{ url: '/v1/my/profile', authorization: `Bearer ${KEY}`, encoding: 'gzip, deflate, br' }]);
    expect(proxy.seen.map((s) => s.line)).toEqual(['CONNECT api.internal.test:443']);
    expect(proxy.tunnelled().toString('latin1')).not.toContain(KEY);
    expect(r.stderr).toContain(`* through proxy http://ci:***@127.0.0.1:${proxy.port} (HTTPS_PROXY)`);
    expect(r.stderr).not.toContain('pa55');
  });

  it('without the CA: exit 1, what failed, and how to trust it', async () => {
    const env = home.env({ HTTPS_PROXY: `http://ci:pa55@127.0.0.1:${proxy.port}` });
    const r = await runBin(['--base-url', 'https://api.internal.test/v1', 'cars'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: could not verify the TLS certificate of https://api.internal.test (GET /cars): the certificate is issued by a CA this machine does not know');
    expect(r.stderr).toContain('NODE_EXTRA_CA_CERTS');
    expect(r.stderr).not.toMatch(/rerunning is safe/);
  });
});
