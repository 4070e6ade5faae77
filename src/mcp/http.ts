// `carrental mcp --http`: the same tools over MCP's Streamable HTTP transport, for hosts
// that connect to a URL instead of spawning a process. It listens on 127.0.0.1 only and
// answers only requests that are its own:
// - Host must be 127.0.0.1:<port> or localhost:<port>, and an Origin, when sent, the same
//   (a web page the user visits cannot reach it through DNS rebinding);
// - every request carries `Authorization: Bearer <token>` (the scheme in any case), a token
//   made at start and said once (stderr, or a 0600 file), unless the server runs on the
//   sandbox: other local users and processes must not book with the customer's key.
//
// Both protocol generations on one endpoint, told apart per request by the SDK's own
// classification (isLegacyRequest):
// - 2026-07-28 requests are stateless: each is served by a fresh server instance
//   (createMcpHandler), which also validates the MCP headers against the body;
// - 2025-11-25 clients get a session per `initialize` (Mcp-Session-Id), each its own server
//   instance, at most MAX_SESSIONS at once; one unused for SESSION_IDLE_MS is closed.
// A body over MAX_BODY is refused with 413 before anything is parsed or any session exists.
// Error answers carry the request's id when it has one, and the JSON-RPC codes the spec
// names (-32700 unparseable, -32600 not a valid request here).
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpServer } from '@modelcontextprotocol/server';
import type { Context } from '../session/context.js';
import { parseIntOption } from '../input/parse.js';
import { writeFileAtomicSync } from '../store/atomic-file.js';

export const MCP_PATH = '/mcp';
/** A 2025 session unused this long is closed (hosts that restart rarely say goodbye). */
export const SESSION_IDLE_MS = 10 * 60_000;
/** How often idle sessions are looked for. */
export const SWEEP_MS = 60_000;
/** Concurrent 2025 sessions; one more is refused with 503 until one ends or idles out. */
export const MAX_SESSIONS = 32;
/** A JSON-RPC body larger than this is refused with 413 (no tool takes anything near it). */
export const MAX_BODY = 1024 * 1024;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INTERNAL_ERROR = -32603;
/** Implementation-defined server error (JSON-RPC's -32000..-32099): refusals that are not about the message. */
export const SERVER_ERROR = -32000;

export interface HttpOptions {
  ctx: Context;
  port?: string;
  tokenFile?: string;
  needsToken: boolean;
  createServer: () => McpServer;
  inflight: Set<Promise<unknown>>;
  log: (line: string) => void;
  describe: string;
}

type Id = string | number | null;

function refuse(res: ServerResponse, status: number, code: number, message: string, id: Id, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

class TooLarge extends Error {}

/** The body, at most MAX_BODY bytes: a larger one (by Content-Length, or as it streams) is TooLarge. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  if (Number(req.headers['content-length']) > MAX_BODY) return Promise.reject(new TooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.removeAllListeners('data');
        // keep reading (and dropping) the rest, so the 413 reaches the client instead of a reset
        req.resume();
        reject(new TooLarge());
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The id of a JSON-RPC request, to echo in an error answer (null when there is none). */
function idOf(body: unknown): Id {
  const id = body && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** `Authorization: Bearer <token>`, the scheme matched in any case (RFC 9110: schemes are case-insensitive). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  const given = Buffer.from(m?.[1] ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** The node request as the SDK's web-standard handlers take it; aborted when the client goes away. */
function webRequest(req: IncomingMessage, res: ServerResponse, url: string, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  return new Request(url, { method: req.method, headers, body: body && req.method !== 'GET' && req.method !== 'HEAD' ? body : undefined, signal: abort.signal });
}

/** Writes a web Response (JSON, or an SSE stream chunk by chunk) to the node response. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the client went away mid-stream
  }
  res.end();
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
  /** calls (POSTs) of this session being answered now: such a session is not idle */
  open: number;
}

export async function serveHttp(opts: HttpOptions): Promise<number> {
  const { ctx, log } = opts;
  const port = parseIntOption(opts.port, '--port', { min: 0, max: 65535 }) ?? 0;
  const token = opts.needsToken ? randomBytes(32).toString('base64url') : undefined;
  const sessions = new Map<string, Session>();
  const closeSession = (sessionId: string) => {
    const session = sessions.get(sessionId);
    sessions.delete(sessionId);
    void session?.transport.close().catch(() => undefined);
  };
  const closeIdle = () => {
    const now = Date.now();
    for (const [sessionId, session] of sessions) if (session.open === 0 && now - session.lastUsed >= SESSION_IDLE_MS) closeSession(sessionId);
  };
  const sweep = setInterval(closeIdle, SWEEP_MS);
  sweep.unref();
  // 2026-07-28: stateless, a server instance per request; 2025 traffic never reaches it
  const modern = createMcpHandler(() => opts.createServer(), { legacy: 'reject', maxRequestBodySize: MAX_BODY, onerror: (err) => log(`protocol error: ${err.message}`) });
  let hosts = new Set<string>();
  let origins = new Set<string>();

  const legacy = async (req: IncomingMessage, res: ServerResponse, request: Request, body: unknown): Promise<void> => {
    const sid = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    const id = idOf(body);
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return refuse(res, 404, SERVER_ERROR, 'session not found (ended, or idle too long): initialize again', id);
      session.lastUsed = Date.now();
      // a call being answered keeps its session; the standalone GET stream a client keeps open does not
      const call = req.method === 'POST';
      if (call) session.open++;
      try {
        return await sendResponse(res, await session.transport.handleRequest(request, { parsedBody: body }));
      } finally {
        if (call) session.open--;
        session.lastUsed = Date.now();
      }
    }
    if (req.method !== 'POST') return refuse(res, 400, INVALID_REQUEST, 'no session: POST an initialize request first (Mcp-Session-Id names a session)', id);
    if (!isInitializeRequest(body)) return refuse(res, 400, INVALID_REQUEST, 'no session: POST an initialize request first', id);
    closeIdle();
    if (sessions.size >= MAX_SESSIONS) {
      return refuse(res, 503, SERVER_ERROR, `too many sessions: this server holds at most ${MAX_SESSIONS} at once; end one (DELETE with its Mcp-Session-Id) or wait until one is idle for ${SESSION_IDLE_MS / 60_000} minutes`, id, {
        'retry-after': '60',
      });
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, lastUsed: Date.now(), open: 0 }),
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await opts.createServer().connect(transport);
    await sendResponse(res, await transport.handleRequest(request, { parsedBody: body }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, seen: { id: Id }) => {
    // the body first (bounded): a refusal can then echo the request's id
    let bytes: Buffer | undefined;
    if (req.method === 'POST') {
      try {
        bytes = await readBody(req);
      } catch (err) {
        if (err instanceof TooLarge) return refuse(res, 413, SERVER_ERROR, `request body too large: at most ${MAX_BODY} bytes`, null, { connection: 'close' });
        throw err;
      }
    }
    let body: unknown;
    let parsed = true;
    try {
      body = bytes?.length ? JSON.parse(bytes.toString('utf8')) : undefined;
    } catch {
      parsed = false;
    }
    const id = (seen.id = idOf(body));
    // DNS rebinding: a page on another name that resolves to 127.0.0.1 sends its own Host and Origin
    if (!hosts.has(req.headers.host ?? '')) return refuse(res, 403, SERVER_ERROR, 'forbidden: this server answers only requests to its own loopback address (Host)', id);
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return refuse(res, 403, SERVER_ERROR, 'forbidden: cross-origin request (Origin)', id);
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== MCP_PATH) return refuse(res, 404, SERVER_ERROR, `not found: the MCP endpoint is ${MCP_PATH}`, id);
    if (token && !bearerMatches(req.headers.authorization, token)) {
      return refuse(res, 401, SERVER_ERROR, 'unauthorized: send Authorization: Bearer <token> (printed when the server started)', id, { 'www-authenticate': 'Bearer' });
    }
    if (req.method === 'POST' && !parsed) return refuse(res, 400, PARSE_ERROR, 'parse error: the body is not JSON', null);
    if (req.method === 'POST' && (body === null || typeof body !== 'object')) return refuse(res, 400, INVALID_REQUEST, 'invalid request: the body must be a JSON-RPC message', null);
    const request = webRequest(req, res, url.href, bytes);
    if (await isLegacyRequest(request, body, { maxRequestBodySize: MAX_BODY })) return legacy(req, res, request, body);
    return sendResponse(res, await modern.fetch(request, { parsedBody: body }));
  };

  const http = createHttpServer((req, res) => {
    const seen = { id: null as Id };
    handle(req, res, seen).catch((err: unknown) => {
      log(`HTTP request failed: ${err instanceof Error ? err.message : String(err)}`);
      refuse(res, 500, INTERNAL_ERROR, 'internal error', seen.id);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  hosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`]);
  origins = new Set([...hosts].map((h) => `http://${h}`));
  const url = `http://127.0.0.1:${bound}${MCP_PATH}`;

  if (token && opts.tokenFile) writeFileAtomicSync(opts.tokenFile, `${token}\n`, { mode: 0o600 });
  else if (token) ctx.io.stderr.write(`carrental mcp: bearer token (shown once): ${token}\n`);
  ctx.io.stdout.write(`${JSON.stringify({ url, transport: 'streamable-http', auth: token ? 'bearer' : 'none', ...(token && opts.tokenFile ? { token_file: opts.tokenFile } : {}) })}\n`);
  log(`serving ${opts.describe} over Streamable HTTP at ${url}${token ? '' : ' (sandbox: no token)'}`);

  const why = await new Promise<string>((resolve) => {
    if (ctx.signal.aborted) resolve('interrupted');
    ctx.signal.addEventListener('abort', () => resolve('interrupted'), { once: true });
    const onTerm = () => resolve('SIGTERM');
    process.once('SIGTERM', onTerm);
    ctx.onCleanup(() => void process.off('SIGTERM', onTerm));
  });
  clearInterval(sweep);
  http.close();
  if (opts.inflight.size) log(`${why}: finishing ${opts.inflight.size} tool call(s) in flight`);
  await Promise.allSettled([...opts.inflight]);
  await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
  await modern.close().catch(() => undefined);
  http.closeAllConnections();
  log(`stopped: ${why}`);
  return 0;
}
