// The built CLI (start.cjs reporting errors for command modules of the ES-module build)
// keeps the key and the terminal safe end to end: a hostile server's error, the key inside
// an argument from the profile, plain http to a remote host, a response past the cap.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { StubServer } from '../helpers/stub-server.js';

const KEY = 'tok-live-ZYXWVUTSRQ987654';
const ESC = '\u001b';
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let stub: StubServer;
let home: TestHome;
beforeAll(async () => {
  assertBuilt();
  stub = await StubServer.start((req) =>
    req.path === '/cars'
      ? { raw: JSON.stringify({ data: { cars: [], total: 0, has_more: false, pad: 'x'.repeat(8000) } }) }
      : { status: 403, json: { error: `No ${ESC}]0;owned\u0007${KEY}\u202e`, error_code: `denied${ESC}[2J`, request_id: `req_${KEY}\u009b1m` } },
  );
  home = new TestHome();
  // the key lives in the profile only: the CLI learns it when the command resolves its target
  const env = home.env();
  mkdirSync(env.CARRENTAL_CONFIG_DIR!, { recursive: true });
  writeFileSync(join(env.CARRENTAL_CONFIG_DIR!, 'config.json'), JSON.stringify({ profiles: { default: { base_url: stub.baseUrl, api_key: KEY } } }), { mode: 0o600 });
});
afterAll(async () => {
  await stub.close();
  home.cleanup();
});

describe('built CLI: keys and output', () => {
  it.each([[[]], [['--debug']], [['--json']]])('a hostile 403 %j prints cleaned and masked (exit 3)', async (flags) => {
    const r = await runBin([...flags, 'profile'], { env: home.env() });
    expect(r.code).toBe(3);
    expect(r.stderr + r.stdout).not.toMatch(UNSAFE);
    expect(r.stderr + r.stdout).not.toContain(KEY);
    expect(r.stderr).toContain('error: No …7654 (denied, request req_…7654)');
  });

  it('refuses the profile’s key inside an api path before sending it (exit 2)', async () => {
    const before = stub.requests.length;
    const r = await runBin(['api', 'GET', `/my/${KEY}`], { env: home.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('an API key is never accepted as a command-line argument');
    expect(r.stderr).not.toContain(KEY);
    expect(stub.requests.length).toBe(before);
  });

  it('refuses to send the key over plain http to a remote host (exit 2)', async () => {
    const r = await runBin(['--base-url', 'http://192.0.2.1/v1', 'profile'], { env: home.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: refusing to send the API key to http://192.0.2.1');
  });

  it('ends a response past CARRENTAL_MAX_RESPONSE_BYTES with exit 1', async () => {
    const r = await runBin(['cars'], { env: home.env({ CARRENTAL_MAX_RESPONSE_BYTES: '4096' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: the response to GET /cars is larger than 4 KiB: stopped reading it');
  });
});
