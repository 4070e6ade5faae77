// `carrental mcp --http` in-process, at its limits: a body over MAX_BODY is a 413 (not a reset)
// before any session exists; at most MAX_SESSIONS 2025 sessions, the next refused with a 503
// that says why; the Bearer scheme in any case; error answers echo the request's id with the
// JSON-RPC code the spec names.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { INVALID_REQUEST, MAX_BODY, MAX_SESSIONS, PARSE_ERROR } from '../../src/mcp/http.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_NOW } from '../booking/sandbox.js';
import { FakeOut, TestHome } from '../helpers/cli.js';

let sb: RunningSandbox;
let home: TestHome;
let url: URL;
let token: string;
let abort: AbortController;
let exited: Promise<number>;

beforeAll(async () => {
  sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true });
  home = new TestHome();
  const stdout = new PassThrough();
  abort = new AbortController();
  const tokenFile = `${home.dir}/token`;
  exited = runCli(['--base-url', sb.baseUrl, 'mcp', '--http', '--token-file', tokenFile], {
    io: { stdin: new PassThrough() as unknown as InStream, stdout: stdout as never, stderr: new FakeOut(false) },
    env: home.env({ CARRENTAL_API_KEY: sb.keys.read_only }),
    signal: abort.signal,
  });
  url = new URL(JSON.parse(await new Promise<string>((r) => stdout.once('data', (d: Buffer) => r(d.toString())))).url);
  token = readFileSync(tokenFile, 'utf8').trim();
});
afterAll(async () => {
  abort.abort();
  expect(await exited).toBe(0);
  home.cleanup();
  await sb.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A raw request; `body` as given (a string is sent as is, chunked when `chunked`). */
function send(method: string, body: unknown, headers: Record<string, string> = {}, chunked = false): Promise<Answer> {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(text)) }),
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.on('data', (d) => (data += d));
        res.on('end', () => {
          const json = data.startsWith('event:') || data.includes('\ndata:') ? JSON.parse(data.split('\n').find((l) => l.startsWith('data:'))!.slice(5)) : data ? JSON.parse(data) : undefined;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: json });
        });
      },
    );
    req.on('error', reject);
    if (chunked) {
      // in pieces, with no Content-Length: the limit holds as the body streams in
      for (let i = 0; i < text.length; i += 64 * 1024) req.write(text.slice(i, i + 64 * 1024));
      req.end();
    } else req.end(text);
  });
}

const initialize = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'limits', version: '1' } } });

it('a body over the limit is answered 413 before any session, by Content-Length or as it streams; the server goes on', async () => {
  const big = JSON.stringify({ ...initialize(1), params: { ...initialize(1).params, padding: 'x'.repeat(2 * MAX_BODY) } });
  for (const chunked of [false, true]) {
    const r = await send('POST', big, {}, chunked);
    expect(r.status, `chunked ${chunked}`).toBe(413);
    expect(r.body.error.message).toMatch(/too large/);
    expect(r.headers['mcp-session-id']).toBeUndefined();
  }
  const ok = await send('POST', initialize(2));
  expect(ok.status).toBe(200);
  expect(ok.headers['mcp-session-id']).toBeTruthy();
  await send('DELETE', undefined, { 'mcp-session-id': ok.headers['mcp-session-id'] as string });
});

it('the Bearer scheme in any case; a wrong token is a 401 that echoes the id', async () => {
  for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
    const r = await send('POST', initialize(3), { authorization: `${scheme} ${token}` });
    expect(r.status, scheme).toBe(200);
    await send('DELETE', undefined, { 'mcp-session-id': r.headers['mcp-session-id'] as string });
  }
  const wrong = await send('POST', initialize(4), { authorization: `Bearer ${token}x` });
  expect(wrong.status).toBe(401);
  expect(wrong.body).toMatchObject({ id: 4, error: { message: expect.stringMatching(/unauthorized/) } });
  expect((await send('POST', initialize(5), { authorization: `Basic ${token}` })).status).toBe(401);
});

it('error answers echo the id, with the spec codes: not JSON -32700, no session -32600, an ended session 404', async () => {
  const notJson = await send('POST', '{"jsonrpc": "2.0", "id": 7,');
  expect(notJson.status).toBe(400);
  expect(notJson.body).toMatchObject({ id: null, error: { code: PARSE_ERROR } });
  const noSession = await send('POST', { jsonrpc: '2.0', id: 8, method: 'tools/list' });
  expect(noSession.status).toBe(400);
  expect(noSession.body).toMatchObject({ id: 8, error: { code: INVALID_REQUEST } });
  const gone = await send('POST', { jsonrpc: '2.0', id: 'nine', method: 'tools/list' }, { 'mcp-session-id': '00000000-0000-4000-8000-000000000000' });
  expect(gone.status).toBe(404);
  expect(gone.body).toMatchObject({ id: 'nine', error: { message: expect.stringMatching(/session not found/) } });
});

it(`at most ${MAX_SESSIONS} sessions: the next initialize is a 503 that says why and echoes its id; ending one makes room`, async () => {
  const ids: string[] = [];
  for (let i = 0; i < MAX_SESSIONS; i++) {
    const r = await send('POST', initialize(100 + i));
    expect(r.status, `session ${i + 1}`).toBe(200);
    ids.push(r.headers['mcp-session-id'] as string);
  }
  const full = await send('POST', initialize(999));
  expect(full.status).toBe(503);
  expect(full.headers['retry-after']).toBeTruthy();
  expect(full.body).toMatchObject({ id: 999, error: { message: expect.stringMatching(new RegExp(`too many sessions: .*at most ${MAX_SESSIONS}`)) } });
  // a 2026-07-28 request needs no session: served even now
  const modern = await send(
    'POST',
    {
      jsonrpc: '2.0',
      id: 1000,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  );
  expect(modern.status, JSON.stringify(modern.body)).toBe(200);
  expect(modern.body.result.tools.length).toBeGreaterThan(0);
  expect((await send('DELETE', undefined, { 'mcp-session-id': ids.pop()! })).status).toBe(200);
  expect((await send('POST', initialize(1001))).status).toBe(200);
});
