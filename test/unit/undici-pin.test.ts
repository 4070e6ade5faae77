// carrental reaches into undici's private files, for start-up time (docs/performance.md):
// src/api/transport.ts imports the Agent, EnvHttpProxyAgent, the request and connect API,
// the Dispatcher base and the redirect and decompress interceptors from lib/ instead of
// the package entry (which loads fetch, WebSocket, caches and mocks too), and
// scripts/build.mjs bundles a stub in place of lib/dispatcher/client-h2.js (node:http2,
// never used: allowH2 stays off). Private files can change in any release, so this pins the
// version they were checked against: updating undici fails here until someone has checked
// them again and moved UNDICI_CHECKED. That the build bundles the stub is checked on the
// build's metafile, in test/e2e/transport-chunk.e2e.test.ts.
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

  it('the files the transport imports are the very objects the package entry exports', () => {
    const entry = require('undici') as Record<string, any>;
    expect(require('undici/lib/dispatcher/agent.js')).toBe(entry.Agent);
    expect(require('undici/lib/dispatcher/env-http-proxy-agent.js')).toBe(entry.EnvHttpProxyAgent);
    expect(require('undici/lib/dispatcher/dispatcher.js')).toBe(entry.Dispatcher);
    expect(require('undici/lib/interceptor/redirect.js')).toBe(entry.interceptors.redirect);
    expect(require('undici/lib/interceptor/decompress.js')).toBe(entry.interceptors.decompress);
    // the entry puts the API methods on every dispatcher; the transport does it for request and connect
    expect(entry.Dispatcher.prototype.request).toBe(require('undici/lib/api/api-request.js'));
    expect(entry.Dispatcher.prototype.connect).toBe(require('undici/lib/api/api-connect.js'));
  });

  it('client-h2.js is reached only through a negotiated h2, which allowH2 (off by default) enables', () => {
    const client = source('lib/dispatcher/client.js');
    expect(client.match(/require\('\.\/client-h2\.js'\)/g)).toHaveLength(1);
    expect(client.match(/connectH2\(/g)).toHaveLength(1);
    expect(client).toMatch(/socket\.alpnProtocol === 'h2'\s*\?\s*connectH2\(client, socket\)/);
    const connect = source('lib/core/connect.js');
    expect(connect).toContain('allowH2 = allowH2 != null ? allowH2 : false');
    expect(connect).toContain("ALPNProtocols: allowH2 ? ['http/1.1', 'h2'] : ['http/1.1']");
    // and carrental never turns it on
    expect(readFileSync(join(ROOT, 'src', 'api', 'transport.ts'), 'utf8')).not.toMatch(/allowH2|useH2c/);
  });
});
