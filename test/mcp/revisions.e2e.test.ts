// The built `carrental mcp` spawned as a host spawns it, driven by the v2 SDK's own stdio and
// HTTP clients negotiating the protocol themselves ('auto': a server/discover probe, the
// 2025 handshake only if that fails): both end on 2026-07-28. (The 1.x client of
// server.e2e.test.ts and http.e2e.test.ts drives the same builds on 2025-11-25.)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';

let home: TestHome;
const cleanups: Array<() => Promise<unknown> | void> = [];
beforeAll(() => assertBuilt());
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function env() {
  home = new TestHome();
  cleanups.push(() => home.cleanup());
  return home.env({ CARRENTAL_SANDBOX_PORT: '0' }) as Record<string, string>;
}

it('over stdio the v2 client negotiates 2026-07-28 and lists and calls the tools', async () => {
  const client = new Client({ name: 'e2e-modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--sandbox', 'mcp'], env: env(), cwd: ROOT, stderr: 'pipe' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  expect(client.getProtocolEra()).toBe('modern');
  expect(client.getServerVersion()?.name).toBe('carrental');
  const { tools } = await client.listTools();
  expect(tools.length).toBe(15);
  const r = await client.callTool({ name: 'search_cars', arguments: { city: 'miami' } });
  expect(r.isError).toBeFalsy();
  expect((r.structuredContent as { cars: unknown[] }).cars.length).toBeGreaterThan(0);
});

it('over HTTP the v2 client negotiates 2026-07-28 on the same endpoint that keeps sessions for 2025 clients', async () => {
  const child = spawn(process.execPath, [BIN, '--sandbox', 'mcp', '--http'], { env: env() });
  cleanups.push(async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  const { url } = JSON.parse(line) as { url: string };
  const client = new Client({ name: 'e2e-modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  cleanups.push(() => client.close());
  expect(client.getProtocolEra()).toBe('modern');
  expect(transport.sessionId).toBeUndefined();
  expect((await client.listTools()).tools.length).toBe(15);
  const r = await client.callTool({ name: 'get_car', arguments: { car_alias: 'nope' } });
  expect(r.isError).toBe(true);
});
