// A journaled write (`cancel` through `api DELETE`) that meets a certificate it cannot
// trust: nothing was sent, so the outcome is known. Exit 1 with what failed and how to
// trust a private CA, never "rerunning is safe"; the first attempt's journal entry goes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import { makeCertificates, serveHttps, type Listening } from '../helpers/network.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
let certs: ReturnType<typeof makeCertificates>;
let api: Listening;
let requests = 0;
let home: TestHome;

beforeAll(async () => {
  certs = makeCertificates(['127.0.0.1']);
  api = await serveHttps(certs.selfSigned, (_req, res) => {
    requests += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
  });
  home = new TestHome();
});
afterAll(async () => {
  await api.close();
  certs.cleanup();
  home.cleanup();
});

describe('a write against a certificate that cannot be trusted', () => {
  it('exit 1, says what failed, leaves no pending entry and sends nothing', async () => {
    const env = home.env({ CARRENTAL_API_KEY: KEY });
    const base = `https://127.0.0.1:${api.port}/v1`;
    const r = await runCommand(['--base-url', base, 'api', 'DELETE', '/my/reservation/00000000-0000-4000-8000-000000000000'], { env, sleep: async () => {} });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: could not verify the TLS certificate of https://127.0.0.1:${api.port} (DELETE /my/reservation/00000000-0000-4000-8000-000000000000): the certificate is self-signed`);
    expect(r.stderr).toContain('NODE_EXTRA_CA_CERTS');
    expect(r.stderr).not.toMatch(/rerunning|unknown/);
    expect(requests).toBe(0);
    const pending = await runCommand(['--base-url', base, 'pending', '--json'], { env });
    expect(pending.code).toBe(0);
    expect(JSON.parse(pending.stdout)).toEqual([]);
  });
});
