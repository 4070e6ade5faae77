// `carrental mcp --http`: the same tools over MCP's Streamable HTTP transport, for hosts
// that connect to a URL instead of spawning a process. It listens on 127.0.0.1 only and
// answers only requests that are its own:
// - Host must be 127.0.0.1:<port> or localhost:<port>, and an Origin, when sent, the same
//   (a web page the user visits cannot reach it through DNS rebinding);
// - every request carries `Authorization: Bearer <token>`, a token made at start and said
//   once (stderr, or a 0600 file), unless the server runs on the sandbox: other local users
//   and processes must not book with the customer's key.
// One MCP session per `initialize` (Mcp-Session-Id), each its own McpServer on the shared
// tools, journal and confirmation secret.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../cli/context.js';
import { parseIntOption } from '../input/parse.js';
import { writeFileAtomicSync } from '../store/atomic-file.js';

export const MCP_PATH = '/mcp';
/** A session unused this long is closed when a new one starts (hosts that restart rarely say goodbye). */
export const SESSION_IDLE_MS = 60 * 60_000;
/** A JSON-RPC body larger than this is refused (no tool takes anything near it). */
const MAX_BODY = 1024 * 1024;

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

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('request body too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new Error('the body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

const sameToken = (given: string | undefined, token: string) => {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(`Bearer ${token}`);
  return a.length === b.length && timingSafeEqual(a, b);
};

export async function serveHttp(opts: HttpOptions): Promise<number> {
  const { ctx, log } = opts;
  const port = parseIntOption(opts.port, '--port', { min: 0, max: 65535 }) ?? 0;
  const token = opts.needsToken ? randomBytes(32).toString('base64url') : undefined;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const lastUsed = new Map<string, number>();
  const closeIdle = () => {
    const now = Date.now();
    for (const [sessionId, used] of lastUsed) {
      if (now - used < SESSION_IDLE_MS) continue;
      lastUsed.delete(sessionId);
      void sessions.get(sessionId)?.close();
      sessions.delete(sessionId);
    }
  };
  let hosts = new Set<string>();
  let origins = new Set<string>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // DNS rebinding: a page on another name that resolves to 127.0.0.1 sends its own Host and Origin
    if (!hosts.has(req.headers.host ?? '')) return refuse(res, 403, 'forbidden: this server answers only requests to its own loopback address (Host)');
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return refuse(res, 403, 'forbidden: cross-origin request (Origin)');
    if (new URL(req.url ?? '/', 'http://x').pathname !== MCP_PATH) return refuse(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
    if (token && !sameToken(req.headers.authorization, token)) {
      return refuse(res, 401, 'unauthorized: send Authorization: Bearer <token> (printed when the server started)', { 'www-authenticate': 'Bearer' });
    }
    const sid = req.headers['mcp-session-id'];
    const id = Array.isArray(sid) ? sid[0] : sid;
    const existing = id === undefined ? undefined : sessions.get(id);
    if (id !== undefined && !existing) return refuse(res, 404, 'session not found: initialize again');
    if (existing) {
      lastUsed.set(id!, Date.now());
      return existing.handleRequest(req, res);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'no session: POST an initialize request first');
    let body: unknown;
    try {
      body = await readJson(req);
    } catch (err) {
      return refuse(res, 400, err instanceof Error ? err.message : String(err));
    }
    if (!isInitializeRequest(body)) return refuse(res, 400, 'no session: POST an initialize request first');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
        lastUsed.set(sessionId, Date.now());
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
        lastUsed.delete(sessionId);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    closeIdle();
    await opts.createServer().connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`HTTP request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.end();
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
  http.close();
  if (opts.inflight.size) log(`${why}: finishing ${opts.inflight.size} tool call(s) in flight`);
  await Promise.allSettled([...opts.inflight]);
  await Promise.allSettled([...sessions.values()].map((t) => t.close()));
  http.closeAllConnections();
  log(`stopped: ${why}`);
  return 0;
}
