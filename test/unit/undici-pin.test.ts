// carrental reaches into undici's private files in two places, both for start-up time
// (docs/development.md, start-up): src/api/client.ts imports lib/dispatcher/agent.js and
// lib/api/api-request.js instead of the package entry (which loads fetch, WebSocket,
// caches and mocks too), and scripts/build.mjs bundles a stub in place of
// lib/dispatcher/client-h2.js (node:http2, never used: allowH2 stays off). Private files
// can change in any release, so this pins the version they were checked against: updating
// undici fails here until someone has checked them again and moved UNDICI_CHECKED.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/bin.js';

const UNDICI_CHECKED = '7.30.2';
const require = createRequire(join(ROOT, 'package.json'));
const source = (file: string) => readFileSync(require.resolve(`undici/${file}`), 'utf8');

describe('undici private files', () => {
  it(`the locked and installed undici is ${UNDICI_CHECKED}, the version they were checked on`, () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    expect(lock.packages['node_modules/undici'].version).toBe(UNDICI_CHECKED);
    expect((require('undici/package.json') as { version: string }).version).toBe(UNDICI_CHECKED);
  });

  it('agent.js is the Agent class and api-request.js the request function the client calls', () => {
    const Agent = require('undici/lib/dispatcher/agent.js') as { prototype: Record<string, unknown> };
    const request = require('undici/lib/api/api-request.js') as (...args: unknown[]) => unknown;
    const entry = require('undici') as { Agent: unknown; Dispatcher: { prototype: { request: unknown } } };
    // the very objects the public entry exports
    expect(Agent).toBe(entry.Agent);
    expect(entry.Dispatcher.prototype.request).toBe(request);
  });

  it('client-h2.js is reached only through a negotiated h2, which allowH2 (off by default) enables', () => {
    const client = source('lib/dispatcher/client.js');
    // one require of it, one call: when TLS negotiated h2
    expect(client.match(/require\('\.\/client-h2\.js'\)/g)).toHaveLength(1);
    expect(client.match(/connectH2\(/g)).toHaveLength(1);
    expect(client).toMatch(/socket\.alpnProtocol === 'h2'\s*\?\s*connectH2\(client, socket\)/);
    // h2 is offered in ALPN only with allowH2, which defaults to off
    const connect = source('lib/core/connect.js');
    expect(connect).toContain('allowH2 = allowH2 != null ? allowH2 : false');
    expect(connect).toContain("ALPNProtocols: allowH2 ? ['http/1.1', 'h2'] : ['http/1.1']");
    // and carrental never turns it on
    expect(readFileSync(join(ROOT, 'src', 'api', 'client.ts'), 'utf8')).not.toMatch(/allowH2|useH2c/);
  });

  it('the build bundles the stub, not the HTTP/2 client', () => {
    const meta = JSON.parse(readFileSync(join(ROOT, '.tmp', 'metafile.json'), 'utf8')) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs.some((i) => i.endsWith('scripts/undici-no-h2.cjs'))).toBe(true);
    expect(inputs.some((i) => i.endsWith('undici/lib/dispatcher/client-h2.js'))).toBe(false);
    expect(inputs.some((i) => i.endsWith('undici/lib/dispatcher/client.js'))).toBe(true);
  });
});
