// `carrental mcp --http`: the built CLI serving Streamable HTTP on loopback, driven by the
// SDK's own HTTP client. One JSON line on stdout, a bearer token (stderr once, or a 0600
// file) unless on the sandbox, and requests whose Host, Origin or token is not its own refused.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { Serve } from './harness.js';

let home: TestHome;
let serve: Serve;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  home = new TestHome();
  serve = await Serve.start(home);
});
afterAll(async () => {
  await serve.stop();
  home.cleanup();
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null) continue;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
});

interface Started {
  child: ChildProcessWithoutNullStreams;
  info: { url: string; transport: string; auth: string; token_file?: string };
  stdout: () => string;
  stderr: () => string;
}

async function start(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawn(process.execPath, [BIN, ...argv], { env: home.env(env) });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, info: JSON.parse(line), stdout: () => stdout, stderr: () => stderr };
}

async function connect(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined);
  const client = new Client({ name: 'http-test-host', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A raw POST (fetch cannot set Host), to see what the server answers a stranger. */
function post(url: string, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('mcp --http', () => {
  it('with a key: a 0600 token file, one JSON line on stdout, the same tools; no token, a wrong one, a foreign Host or Origin: refused', async () => {
    const tokenFile = join(home.dir, 'mcp-token');
    const s = await start(['--base-url', serve.info.base_url, 'mcp', '--http', '--token-file', tokenFile], { CARRENTAL_API_KEY: serve.info.keys.read_only });
    expect(s.info).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/), transport: 'streamable-http', auth: 'bearer', token_file: tokenFile });
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.stderr()).not.toContain(token);

    const client = await connect(s.info.url, token);
    expect((await client.listTools()).tools).toHaveLength(15);
    const trips = await client.callTool({ name: 'list_trips', arguments: {} });
    expect(trips.isError).toBeFalsy();
    await client.close();

    const port = new URL(s.info.url).port;
    expect(await post(s.info.url, {})).toBe(401);
    expect(await post(s.info.url, { authorization: 'Bearer wrong' })).toBe(401);
    expect(await post(s.info.url, { authorization: `Bearer ${token}`, host: `evil.example:${port}` })).toBe(403);
    expect(await post(s.info.url, { authorization: `Bearer ${token}`, origin: 'http://evil.example' })).toBe(403);
    expect(await post(s.info.url, { authorization: `Bearer ${token}`, host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(200);
    await expect(connect(s.info.url)).rejects.toThrow();

    const exit = new Promise((r) => s.child.once('exit', r));
    s.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(s.stdout().trim().split('\n')).toHaveLength(1);
    expect(s.stderr()).not.toContain(serve.info.keys.read_only);
  });

  it('without --token-file the token is said once on stderr; on the sandbox there is none', async () => {
    const s = await start(['--base-url', serve.info.base_url, 'mcp', '--http'], { CARRENTAL_API_KEY: serve.info.keys.read_only });
    const token = /bearer token \(shown once\): (\S+)/.exec(s.stderr())?.[1];
    expect(token).toBeTruthy();
    const client = await connect(s.info.url, token);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    expect(s.stderr().split(token!).length).toBe(2);

    const sandbox = await start(['--sandbox', 'mcp', '--http', '--allow-booking'], { CARRENTAL_SANDBOX_PORT: '0', CARRENTAL_SANDBOX_STATE: join(home.dir, 'http-sandbox.json') });
    expect(sandbox.info.auth).toBe('none');
    const open = await connect(sandbox.info.url);
    expect((await open.listTools()).tools.map((t) => t.name)).toContain('reserve');
    await open.close();
  });

  it('--port or --token-file without --http is a usage error (exit 2)', async () => {
    const child = spawn(process.execPath, [BIN, '--sandbox', 'mcp', '--port', '8931'], { env: home.env() });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    expect(await new Promise((r) => child.once('exit', r))).toBe(2);
    expect(stderr).toMatch(/--port and --token-file go with --http/);
  });
});
