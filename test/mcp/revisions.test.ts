// Both protocol generations on the official clients: the v2 SDK's Client pinned to
// 2026-07-28 (no initialize, no session, the per-request envelope, input_required results to
// ask the customer) over stdio and over HTTP, beside the 1.x SDK's Client (2025-11-25:
// initialize, a session, elicitation requests) on the same HTTP endpoint. In-process: runCli
// with piped stdio, against the in-process sandbox.
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as Client2025 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Http2025 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { INSTRUCTIONS } from '../../src/mcp/instructions.js';
import { LIST_CACHE } from '../../src/mcp/server.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { FROM, SANDBOX_NOW, TO, freeCars, requests, reservations, resetSandbox } from '../booking/sandbox.js';
import { FakeOut, TestHome } from '../helpers/cli.js';
import { PipeTransport } from '../helpers/mcp-pipe.js';

const MODERN = '2026-07-28';
let sb: RunningSandbox;
let home: TestHome;
let alias: string;
const stops: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true });
});
afterAll(async () => {
  await sb.close();
});
beforeEach(async () => {
  await resetSandbox(sb);
  home = new TestHome();
  [alias] = await freeCars(sb, 1);
});
afterEach(async () => {
  while (stops.length) await stops.pop()!();
  home.cleanup();
});

type Elicit = (params: { mode?: string; message: string; requestedSchema?: any; url?: string }) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

function modernClient(elicit?: Elicit, name = 'modern-host') {
  const client = new Client({ name, version: '9.9' }, { versionNegotiation: { mode: { pin: MODERN } }, ...(elicit ? { capabilities: { elicitation: { form: {}, url: {} } } } : {}) });
  if (elicit) client.setRequestHandler('elicitation/create', (request) => elicit(request.params as never) as never);
  return client;
}

/** `carrental mcp [argv]` over piped stdio; every line the server writes is kept. */
function stdioServer(argv = ['--allow-booking']) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new FakeOut(false);
  const lines: any[] = [];
  let buffer = '';
  stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
  });
  const exited = runCli(['--base-url', sb.baseUrl, 'mcp', ...argv], {
    io: { stdin: stdin as unknown as InStream, stdout: stdout as never, stderr },
    env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, CARRENTAL_WRITE_RETRIES: '2' }),
    sleep: async () => {},
  });
  const send = (message: unknown) => stdin.write(`${JSON.stringify(message)}\n`);
  const answer = async (id: number) => {
    for (let i = 0; i < 500 && !lines.some((l) => l.id === id); i++) await new Promise((r) => setTimeout(r, 10));
    return lines.find((l) => l.id === id);
  };
  return { stdin, stdout, stderr, lines, exited, send, answer, transport: () => new PipeTransport(stdin, stdout) };
}

const structured = (r: { structuredContent?: unknown }) => r.structuredContent as Record<string, any>;
const trip = () => ({ car_alias: alias, date_checkin: FROM, date_checkout: TO });

describe('2026-07-28 over stdio (the v2 SDK client)', () => {
  it('no initialize and no session: server/discover, the instructions, tools/list with cache hints, the host named from each request', async () => {
    const srv = stdioServer([]);
    const client = modernClient(undefined, 'modern-host');
    await client.connect(srv.transport() as never);
    stops.push(async () => {
      await client.close();
      expect(await srv.exited).toBe(0);
    });
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getInstructions()).toBe(INSTRUCTIONS);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('search_cars');
    expect(tools.map((t) => t.name)).not.toContain('reserve');
    const r = await client.callTool({ name: 'search_cars', arguments: { city: 'la', date_from: FROM, date_to: TO } });
    expect(r.isError).toBeFalsy();
    expect(structured(r).cars.length).toBeGreaterThan(0);

    // on the wire: discover answered, never an initialize; the list carries its cache hint;
    // every answer says which server it is
    const discover = srv.lines.find((l) => l.result?.supportedVersions);
    expect(discover.result.supportedVersions).toContain(MODERN);
    expect(srv.lines.some((l) => l.result?.protocolVersion && l.result?.serverInfo && !l.result?.supportedVersions)).toBe(false);
    const listed = srv.lines.find((l) => Array.isArray(l.result?.tools));
    expect(listed.result).toMatchObject({ ttlMs: LIST_CACHE.ttlMs, cacheScope: LIST_CACHE.cacheScope });
    expect(listed.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('carrental');
    // X-Agent-Client comes from the request's own envelope (there is no initialize to learn it from)
    expect((await client.callTool({ name: 'card_link', arguments: {} })).isError).toBeFalsy();
    expect(((await requests(sb, 'cardAddLink')).at(-1) as { agent_client?: string } | undefined)?.agent_client).toBe('modern-host/9.9 carrental/0.1.0');
  });

  it('input_required: reserve and cancel_reservation ask the customer through the host; a no writes nothing, a yes books once', async () => {
    const forms: Array<{ message: string; requestedSchema: any }> = [];
    let yes = false;
    const srv = stdioServer();
    const client = modernClient((p) => {
      forms.push(p as never);
      return { action: 'accept', content: { [Object.keys(p.requestedSchema.properties)[0]]: yes } };
    });
    await client.connect(srv.transport() as never);
    stops.push(async () => {
      await client.close();
      expect(await srv.exited).toBe(0);
    });

    const no = await client.callTool({ name: 'reserve', arguments: trip() });
    expect(no.isError, JSON.stringify(no.content)).toBeFalsy();
    expect(structured(no)).toMatchObject({ sent: false, customer_answer: 'decline' });
    expect(forms).toHaveLength(1);
    expect(forms[0].message).toMatch(/^Reserve for \$[\d,.]+, plus a \$[\d,.]+ refundable deposit: “.*” \(.*\), from .* to .*\?/);
    expect(forms[0].requestedSchema).toMatchObject({ properties: { reserve: { type: 'boolean' } }, required: ['reserve'] });
    expect(await requests(sb, 'createReservation')).toEqual([]);
    // the question went out as an input_required result, not as a request from the server
    expect(srv.lines.some((l) => l.result?.resultType === 'input_required' && l.result.inputRequests?.reserve && typeof l.result.requestState === 'string')).toBe(true);
    expect(srv.lines.some((l) => l.method === 'elicitation/create')).toBe(false);

    yes = true;
    const booked = await client.callTool({ name: 'reserve', arguments: trip() });
    expect(structured(booked)).toMatchObject({ status: 'new', confirmed_by: 'elicitation', replayed: false });
    expect(await reservations(sb, alias)).toHaveLength(1);

    const asked = forms.length;
    const cancelled = await client.callTool({ name: 'cancel_reservation', arguments: { reservation_uuid: structured(booked).reservation_uuid } });
    expect(forms.length).toBe(asked + 1);
    expect(forms.at(-1)!.message).toMatch(/^Cancel a \$[\d,.]+ trip with a \$[\d,.]+ deposit: /);
    expect(structured(cancelled)).toMatchObject({ status: 'cancelled', confirmed_by: 'elicitation' });
  });

  it('an answer the server did not ask for, an altered requestState or an answer to another question writes nothing: it asks again', async () => {
    const srv = stdioServer();
    stops.push(async () => {
      srv.stdin.end();
      expect(await srv.exited).toBe(0);
    });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    };
    const yes = { action: 'accept', content: { reserve: true } };
    let id = 0;
    const call = async (args: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      srv.send({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'reserve', arguments: args, _meta: meta, ...extra } });
      return (await srv.answer(id))!;
    };
    // a yes nobody asked for: asked
    const first = await call(trip(), { inputResponses: { reserve: yes } });
    expect(first.result.resultType).toBe('input_required');
    const state = first.result.requestState as string;
    // the state of that question, altered: refused with the spec's invalid-params error
    const [v, body, mac] = state.split('.');
    const altered = await call(trip(), { inputResponses: { reserve: yes }, requestState: `${v}.${body}.${mac.slice(0, -2)}AA` });
    expect(altered.error?.code).toBe(-32602);
    // the state of that question, echoed for another request (other dates): asked again
    const other = await call({ ...trip(), date_checkout: '2026-12-05T10:00' }, { inputResponses: { reserve: yes }, requestState: state });
    expect(other.result.resultType).toBe('input_required');
    expect(await requests(sb, 'createReservation')).toEqual([]);
    // the same question answered: booked
    const booked = await call(trip(), { inputResponses: { reserve: yes }, requestState: state });
    expect(booked.result.structuredContent).toMatchObject({ status: 'new', confirmed_by: 'elicitation' });
    expect(await reservations(sb, alias)).toHaveLength(1);
  });
});

/** `carrental mcp --http [argv]` in-process: its URL and token. */
async function httpServer(argv: string[] = []) {
  const stdout = new PassThrough();
  const abort = new AbortController();
  const tokenFile = `${home.dir}/token`;
  const stderr = new FakeOut(false);
  const exited = runCli(['--base-url', sb.baseUrl, 'mcp', '--http', '--token-file', tokenFile, ...argv], {
    io: { stdin: new PassThrough() as unknown as InStream, stdout: stdout as never, stderr },
    env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, CARRENTAL_WRITE_RETRIES: '2' }),
    signal: abort.signal,
    sleep: async () => {},
  });
  const { url } = JSON.parse(await new Promise<string>((r) => stdout.once('data', (d: Buffer) => r(d.toString()))));
  const token = readFileSync(tokenFile, 'utf8').trim();
  stops.push(async () => {
    abort.abort();
    expect(await exited).toBe(0);
  });
  return { url: url as string, token, stderr };
}

describe('both generations on one HTTP endpoint', () => {
  it('a 2025-11-25 client gets a session, a 2026-07-28 client none; the same tools; the customer asked on each', async () => {
    const { url, token } = await httpServer(['--allow-booking']);
    const headers = { authorization: `Bearer ${token}` };
    const old = new Client2025({ name: 'old-host', version: '1' }, { capabilities: { elicitation: {} } });
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const oldForms: string[] = [];
    old.setRequestHandler(ElicitRequestSchema, (r) => {
      oldForms.push(r.params.message);
      return { action: 'decline' };
    });
    const oldTransport = new Http2025(new URL(url), { requestInit: { headers } });
    await old.connect(oldTransport);
    stops.push(() => old.close());
    expect(oldTransport.sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const forms: string[] = [];
    const modern = modernClient((p) => {
      forms.push(p.message);
      return { action: 'accept', content: { reserve: true } };
    });
    const modernTransport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    await modern.connect(modernTransport);
    stops.push(() => modern.close());
    expect(modern.getProtocolEra()).toBe('modern');
    expect(modernTransport.sessionId).toBeUndefined();

    const names = (r: { tools: Array<{ name: string }> }) => r.tools.map((t) => t.name).sort();
    expect(names(await modern.listTools())).toEqual(names(await old.listTools()));
    expect(names(await modern.listTools())).toContain('reserve');

    // 2025: an elicitation request on the session; declined, nothing booked
    const declined = await old.callTool({ name: 'reserve', arguments: trip() });
    expect(structured(declined as never)).toMatchObject({ sent: false, customer_answer: 'decline' });
    expect(oldForms).toHaveLength(1);
    expect(await requests(sb, 'createReservation')).toEqual([]);
    // 2026: an input_required result, the call made again with the answer (each round a new request)
    const booked = await modern.callTool({ name: 'reserve', arguments: trip() });
    expect(structured(booked)).toMatchObject({ status: 'new', confirmed_by: 'elicitation' });
    expect(forms).toHaveLength(1);
    expect(await reservations(sb, alias)).toHaveLength(1);
  });
});
