// The built CLI against https servers whose certificates fail for a reason other than trust
// (issue 24): an expired leaf and a leaf for another host name, both from a private CA that
// is trusted the documented way (NODE_EXTRA_CA_CERTS, read by node at start: only a spawned
// run can show it, so the check gets past the CA and reaches the dates and the name).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/cli.js';
import { makeCertificates, serveHttps, type Listening } from '../helpers/network.js';

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

  it('a journaled reserve against an expired certificate: nothing sent, exit 1, no pending entry left', async () => {
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
