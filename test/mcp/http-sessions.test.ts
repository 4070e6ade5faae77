// `carrental mcp --http` in-process: a session unused for SESSION_IDLE_MS is closed when a new one
// starts (hosts that restart rarely end their sessions), a recent one is kept.
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { SESSION_IDLE_MS, SWEEP_MS } from '../../src/mcp/http.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_NOW } from '../booking/sandbox.js';
import { FakeOut, TestHome } from '../helpers/cli.js';

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true });
});
afterAll(async () => {
  await sb.close();
});

it('an idle session is closed when a new one starts; a recent one is kept', async () => {
  const home = new TestHome();
  const stdout = new PassThrough();
  const abort = new AbortController();
  const tokenFile = `${home.dir}/token`;
  const exited = runCli(['--base-url', sb.baseUrl, 'mcp', '--http', '--token-file', tokenFile], {
    io: { stdin: new PassThrough() as unknown as InStream, stdout: stdout as never, stderr: new FakeOut(false) },
    env: home.env({ CARRENTAL_API_KEY: sb.keys.read_only }),
    signal: abort.signal,
  });
  const { url } = JSON.parse(await new Promise<string>((r) => stdout.once('data', (d: Buffer) => r(d.toString()))));
  const { readFileSync } = await import('node:fs');
  const headers = { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` };
  const open = async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  };
  const spy = vi.spyOn(Date, 'now');
  try {
    const start = Date.now();
    spy.mockReturnValue(start);
    const old = await open();
    const recent = await open();
    spy.mockReturnValue(start + SESSION_IDLE_MS - 1000);
    await recent.listTools(); // used just now
    spy.mockReturnValue(start + SESSION_IDLE_MS + 1000);
    const fresh = await open(); // starting it closes the idle one
    await expect(old.listTools()).rejects.toThrow(/session not found|404/i);
    expect((await recent.listTools()).tools.length).toBeGreaterThan(0);
    expect((await fresh.listTools()).tools.length).toBeGreaterThan(0);
  } finally {
    spy.mockRestore();
    abort.abort();
    expect(await exited).toBe(0);
    home.cleanup();
  }
});

it('an idle session is closed within a sweep even when no new session starts', async () => {
  // only the sweep's interval is faked: the server, the client and the sandbox keep real time
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const home = new TestHome();
  const stdout = new PassThrough();
  const abort = new AbortController();
  const tokenFile = `${home.dir}/token`;
  const exited = runCli(['--base-url', sb.baseUrl, 'mcp', '--http', '--token-file', tokenFile], {
    io: { stdin: new PassThrough() as unknown as InStream, stdout: stdout as never, stderr: new FakeOut(false) },
    env: home.env({ CARRENTAL_API_KEY: sb.keys.read_only }),
    signal: abort.signal,
  });
  const spy = vi.spyOn(Date, 'now');
  try {
    const { url } = JSON.parse(await new Promise<string>((r) => stdout.once('data', (d: Buffer) => r(d.toString()))));
    const { readFileSync } = await import('node:fs');
    const headers = { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` };
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    const start = Date.now();
    spy.mockReturnValue(start + SESSION_IDLE_MS - 1000);
    vi.advanceTimersByTime(SWEEP_MS);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0); // not idle yet, and now used
    spy.mockReturnValue(start + 2 * SESSION_IDLE_MS);
    vi.advanceTimersByTime(SWEEP_MS);
    await expect(client.listTools()).rejects.toThrow(/session not found|404/i);
  } finally {
    spy.mockRestore();
    vi.useRealTimers();
    abort.abort();
    expect(await exited).toBe(0);
    home.cleanup();
  }
});
