// The MCP server over stdio: the tools of tools.ts on the command's own profile, client and
// journal. Which tools exist is decided once, here, before the server answers anything:
// reserve and cancel_reservation only with --allow-booking and a key the API confirms is
// booking_write. Hosts may ignore annotations, so safety comes from what is registered.
//
// It runs on the v2 SDK and serves both protocol generations from one factory: 2026-07-28
// clients statelessly (server/discover, the per-request `_meta` envelope, input_required
// results to ask the customer) and 2025-11-25 clients with initialize and a session
// (elicitation requests to ask the customer). Over stdio the first message picks the
// generation for the connection (the SDK's serveStdio); over HTTP, each request (http.ts).
//
// stdout carries only the protocol; notes, progress and --debug go to stderr (the host's
// log). The server ends cleanly when stdin closes, on SIGTERM or Ctrl-C, after the tool
// calls in flight have finished and been answered (a create or cancel then settles its
// journal entry).
import { randomBytes, randomUUID } from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, McpServer, PROTOCOL_VERSION_META_KEY, type CallToolResult, type ClientCapabilities, type Implementation, type InputRequiredResult, type ServerContext, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { $ZodType } from 'zod/v4/core';
import { z } from '../api/zod.js';
import { READ_RETRY, type ApiClient } from '../api/client.js';
import { Api } from '../api/endpoints.js';
import { OPERATIONS, type Operation } from '../api/operations.js';
import { scrubSecrets } from '../text/redact.js';
import type { Context } from '../session/context.js';
import { services, type Target } from '../session/services.js';
import { JournaledWrite } from '../booking/journaled-write.js';
import { parseIntOption } from '../input/parse.js';
import { configDir } from '../store/paths.js';
import { installSecret } from '../store/install-secret.js';
import { Confirmations } from './confirmation.js';
import { CliError, usageError } from '../errors.js';
import { Output } from '../render/output.js';
import { clean, cleanText } from '../text/sanitize.js';
import { errorResult, okResult } from './results.js';
import { moreTools, TOOLS, TOOLSETS, type ToolDef, type ToolDeps, type Toolset } from './tools.js';
import { formAnswer, ModernFlow, NeedInput, stateCodec, yesNoSchema, type Answer, type StateCodec } from './ask.js';
import { INSTRUCTIONS } from './instructions.js';
import { LineTransport } from './stdio.js';

export interface McpInput {
  allowBooking?: boolean;
  /** Streamable HTTP on loopback instead of stdio. */
  http?: boolean;
  port?: string;
  /** Where the bearer token goes (0600) instead of stderr. */
  tokenFile?: string;
  /** Comma-separated toolset names (TOOLSETS); default: every read-only one. */
  toolsets?: string;
  /** Refuse reserve and cancel_reservation from a client that cannot ask its user. */
  requireCustomer?: boolean;
}

/** The toolsets asked for; an unknown name fails start-up (a typo must not silently drop tools). */
export function parseToolsets(text: string | undefined, allowBooking: boolean): Set<Toolset> {
  if (text === undefined) return new Set<Toolset>(allowBooking ? TOOLSETS : TOOLSETS.filter((t) => t !== 'booking'));
  const names = text.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length || !names.length) throw usageError(`--toolsets takes a comma-separated list of ${TOOLSETS.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  return new Set(names as Toolset[]);
}

/** The tool of every operation; an operation without one is a bug caught at start-up (and by a test). */
export function toolsByOperation(): Map<Operation, ToolDef> {
  const byId = new Map(TOOLS.map((t) => [t.operation, t]));
  const out = new Map<Operation, ToolDef>();
  for (const op of OPERATIONS) {
    const tool = byId.get(op.id);
    if (!tool) throw new Error(`operation ${op.id} has no MCP tool`);
    out.set(op, tool);
    byId.delete(op.id);
  }
  if (byId.size) throw new Error(`MCP tools name unknown operations: ${[...byId.keys()].join(', ')}`);
  return out;
}

export const isWrite = (op: Operation) => op.capability === 'booking_write';

/** The MCP annotations of an operation, from its row of the operations table. */
export function annotationsFor(op: Operation, title: string) {
  if (!isWrite(op)) return { title, readOnlyHint: true, openWorldHint: false };
  return { title, readOnlyHint: false, destructiveHint: op.method === 'DELETE', idempotentHint: op.idempotent === true, openWorldHint: false };
}

/**
 * X-Agent-Client: the host's name and version as it reported them in `initialize`, then
 * ours; only printable ASCII and at most 64 characters, or the API ignores it.
 */
export function agentClientName(host: { name?: string; version?: string } | undefined, version: string): string {
  const ours = `carrental/${version}`;
  const token = (s: string | undefined) => (s ?? '').replace(/[^\x21-\x7e]+/g, '-').replace(/^-+|-+$/g, '');
  const name = token(host?.name);
  if (!name) return ours;
  const hostToken = host?.version && token(host.version) ? `${name}/${token(host.version)}` : name;
  const full = `${hostToken} ${ours}`;
  return full.length <= 64 ? full : hostToken.slice(0, 64);
}

/**
 * Whether the key may create and cancel: the probe `doctor` uses, a DELETE of a reservation
 * that cannot exist (404: booking_write; 403 api_key_write_upgrade_required: read_only).
 */
export async function keyCanBook(client: ApiClient): Promise<{ ok: boolean; why?: string }> {
  if (!client.hasKey) return { ok: false, why: 'no API key is configured' };
  try {
    await client.request({
      method: 'DELETE',
      path: `/my/reservation/${randomUUID()}`,
      auth: 'key',
      headers: { 'idempotency-key': randomUUID() },
      retry: READ_RETRY,
    });
    return { ok: false, why: 'the capability probe was answered with a success, which no API following the spec does' };
  } catch (err) {
    const api = err instanceof CliError ? err.api : undefined;
    if (api?.status === 404) return { ok: true };
    if (api?.error_code === 'api_key_write_upgrade_required') return { ok: false, why: 'the key is read_only (a booking_write key is created in the account settings)' };
    if (api?.error_code === 'api_key_operation_not_enabled') return { ok: false, why: 'this deployment does not yet accept keys on cancel' };
    return { ok: false, why: `could not confirm the key is booking_write (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** A stream for the services' Output: everything it writes goes to stderr, never into the protocol. */
function stderrOnly(ctx: Context): Context {
  return { ...ctx, io: { stdin: ctx.io.stdin, stdout: ctx.io.stderr, stderr: ctx.io.stderr }, globals: { ...ctx.globals, json: false } };
}

/** How long a client may reuse tools/list (and server/discover): the list is fixed for the life of the process. */
export const LIST_CACHE = { ttlMs: 5 * 60_000, cacheScope: 'private' as const };

const jsonSchemas = new Map<string, Record<string, unknown>>();
/**
 * A tool's input schema as the SDK takes it: validated by zod, listed as the JSON Schema
 * zod makes of it. zod/mini carries no `~standard.jsonSchema`, so it is given here (once per
 * tool and dialect: an HTTP server builds a server instance per request).
 */
export function toolSchema(name: string, input: $ZodType): StandardSchemaWithJSON {
  const std = input['~standard'];
  const json =
    (io: 'input' | 'output') =>
    ({ target }: { target: string }): Record<string, unknown> => {
      const dialect = target === 'draft-07' ? 'draft-7' : target;
      const key = `${name}\0${io}\0${dialect}`;
      let schema = jsonSchemas.get(key);
      if (!schema) jsonSchemas.set(key, (schema = z.toJSONSchema(input, { target: dialect as 'draft-2020-12', io }) as Record<string, unknown>));
      return schema;
    };
  return { '~standard': { version: 1, vendor: std.vendor, validate: std.validate, jsonSchema: { input: json('input'), output: json('output') } } } as StandardSchemaWithJSON;
}

/** The 2026-07-28 revision and later: no initialize, the per-request envelope, input_required. */
const isModernRevision = (version: unknown) => typeof version === 'string' && version >= '2026-07-28';

export async function runMcpServer(input: McpInput, ctx: Context): Promise<number> {
  const stdin = ctx.io.stdin;
  const stdout = ctx.io.stdout;
  const toolsets = parseToolsets(input.toolsets, !!input.allowBooking);
  if (!input.http && (input.port !== undefined || input.tokenFile !== undefined)) throw usageError('--port and --token-file go with --http');
  if (input.http) parseIntOption(input.port, '--port', { min: 0, max: 65535 });
  const quiet = stderrOnly(ctx);
  const { client, target } = await services(quiet);
  const out = new Output(quiet);
  const secrets = [target.apiKey];
  // a line may quote the peer's bytes (a protocol error): one clean line, the key masked;
  // only our own stack trace keeps its line breaks
  const log = (line: string, stack = false) => ctx.io.stderr.write(`carrental mcp: ${scrubSecrets(stack ? cleanText(line) : clean(line), secrets)}\n`);

  let writes: { ok: boolean; why?: string } = { ok: false, why: 'read-only: start the server with --allow-booking to offer reserve and cancel_reservation' };
  if (input.allowBooking && !toolsets.has('booking')) writes = { ok: false, why: 'the booking toolset is not in --toolsets' };
  else if (input.allowBooking) writes = await keyCanBook(client);
  else if (toolsets.has('booking')) writes = { ok: false, why: 'the booking toolset also needs --allow-booking' };

  // only a server that may book issues confirmations (and so makes the install's secret);
  // a read-only one seals its input_required rounds with a key of its own
  const secret = writes.ok ? installSecret(configDir(ctx.env)) : randomBytes(32);
  const shared = {
    target,
    out,
    now: () => ctx.now(),
    writer: writes.ok ? new JournaledWrite(quiet, out, target, undefined, { seeReservation: () => 'list_trips' }) : undefined,
    confirmations: writes.ok ? new Confirmations(secret, () => ctx.now()) : undefined,
    requireCustomer: !!input.requireCustomer,
  };
  const codec = stateCodec(secret);
  const inflight = new Set<Promise<unknown>>();
  const offered = [...toolsByOperation(), ...moreTools()].filter(([op, tool]) => toolsets.has(tool.toolset) && (!isWrite(op) || writes.ok));

  /**
   * One MCP server instance, all on the same tools, journal and secret: stdio has one per
   * connection; HTTP one per 2025 session and one per 2026 request.
   */
  const createServer = (): McpServer => {
    const server = new McpServer(
      { name: 'carrental', title: 'carrental', version: ctx.version },
      {
        // the list never changes while the server runs
        capabilities: { tools: { listChanged: false } },
        instructions: INSTRUCTIONS,
        cacheHints: { 'tools/list': LIST_CACHE, 'server/discover': LIST_CACHE },
        requestState: { verify: codec.verify },
      },
    );
    for (const [op, tool] of offered) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: toolSchema(tool.name, tool.input), annotations: annotationsFor(op, tool.title) },
        (args: unknown, hctx: ServerContext) => {
          const call = callTool(tool, args, depsFor(server, hctx, tool, args), { secrets, log, codec });
          inflight.add(call);
          void call.finally(() => inflight.delete(call));
          return call;
        },
      );
    }
    server.server.onerror = (err) => log(`protocol error: ${err.message}`);
    return server;
  };

  /** A call's dependencies: who the host is and what it can ask its user come with each 2026 request, from initialize for 2025. */
  const depsFor = (server: McpServer, hctx: ServerContext, tool: ToolDef, args: unknown): ToolDeps & { flow?: ModernFlow } => {
    const envelope = (hctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
    const modern = isModernRevision(envelope[PROTOCOL_VERSION_META_KEY] ?? server.server.getNegotiatedProtocolVersion());
    const host = (envelope[CLIENT_INFO_META_KEY] as Implementation | undefined) ?? server.server.getClientVersion();
    const caps = (envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? (modern ? undefined : server.server.getClientCapabilities());
    const elicitation = caps?.elicitation as { form?: object; url?: object } | undefined;
    // a bare `elicitation: {}` is form support (its meaning before modes existed)
    const canForm = !!elicitation && (elicitation.form !== undefined || elicitation.url === undefined);
    const canUrl = !!elicitation?.url;
    const flow = modern ? new ModernFlow(hctx, { tool: tool.name, args }) : undefined;
    return {
      ...shared,
      flow,
      api: () => new Api(client, agentClientName(host, ctx.version)),
      askCustomer: () => (!canForm ? undefined : flow ? flow.ask : (message, field) => askThroughHost(hctx, message, field)),
      offerUrl: () => (!canUrl ? undefined : flow ? flow.offerUrl : (message, url) => offerThroughHost(hctx, message, url)),
    };
  };

  if ((input.allowBooking || toolsets.has('booking')) && !writes.ok) log(`reserve and cancel_reservation are not offered: ${writes.why}`);
  const serving = `${offered.length} tools (${[...toolsets].join(', ')})`;
  const mode = `for profile "${target.profile}" at ${describeTarget(target)}${writes.ok ? ' (booking allowed)' : ' (read-only)'}${input.requireCustomer ? ', writes only from hosts that ask the customer' : ''}`;

  if (input.http) {
    // the HTTP server, its transports and limits load only for --http
    const { serveHttp } = await import('./http.js');
    return serveHttp({ ctx, port: input.port, tokenFile: input.tokenFile, needsToken: !target.sandbox, createServer, inflight, log, describe: `${serving} ${mode}` });
  }
  log(`serving ${serving} over stdio ${mode}`);

  let stop!: (why: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  const transport = new LineTransport(stdin, stdout, stop);
  if (ctx.signal.aborted) stop('interrupted');
  ctx.signal.addEventListener('abort', () => stop('interrupted'), { once: true });
  const onTerm = () => stop('SIGTERM');
  process.once('SIGTERM', onTerm);
  ctx.onCleanup(() => void process.off('SIGTERM', onTerm));
  const handle = serveStdio(createServer, { transport, onerror: (err) => log(`protocol error: ${err.message}`) });
  const why = await stopped;
  if (inflight.size) log(`${why}: finishing ${inflight.size} tool call(s) in flight`);
  await Promise.allSettled([...inflight]);
  // the SDK sends a tool's answer a few promise turns after the tool resolved
  for (let turns = 0; turns < 100 && (turns < 2 || transport.sending > 0); turns++) await new Promise((r) => setImmediate(r));
  await handle.close().catch(() => undefined);
  log(`stopped: ${why}`);
  return 0;
}

/** A yes/no form through a 2025-11-25 host (MCP elicitation): yes only when accepted and ticked. */
async function askThroughHost(hctx: ServerContext, message: string, field: string): Promise<Answer> {
  // a human answers: far longer than a request's usual minute
  const answer = await hctx.mcpReq.elicitInput({ mode: 'form', message, requestedSchema: yesNoSchema(message, field) }, { timeout: 10 * 60_000 });
  return formAnswer(answer as never, field) ?? 'cancel';
}

/** A link through a 2025-11-25 host that supports URL-mode elicitation: the user is asked to open it. */
async function offerThroughHost(hctx: ServerContext, message: string, url: string): Promise<Answer> {
  const answer = await hctx.mcpReq.elicitInput({ mode: 'url', message, url, elicitationId: randomUUID() }, { timeout: 10 * 60_000 });
  return answer.action;
}

function describeTarget(target: Target): string {
  return target.embedded ? `the embedded sandbox (${target.baseUrl})` : target.baseUrl;
}

interface CallContext {
  secrets: Array<string | undefined>;
  log: (line: string, stack?: boolean) => void;
  codec: StateCodec;
}

async function callTool(tool: ToolDef, args: unknown, deps: ToolDeps & { flow?: ModernFlow }, { secrets, log, codec }: CallContext): Promise<CallToolResult | InputRequiredResult> {
  let key: string | undefined;
  const callDeps: ToolDeps = { ...deps, onWriteKey: (k) => (key = k) };
  try {
    const structured = await tool.run(args as never, callDeps);
    return okResult(structured, secrets) as CallToolResult;
  } catch (err) {
    // the customer must answer first (2026-07-28): the call ends here, before any write
    if (err instanceof NeedInput && deps.flow) return deps.flow.result(err, codec);
    if (!(err instanceof CliError)) log(`${tool.name} failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, true);
    const resume =
      key && err instanceof CliError && err.kind === 'unavailable'
        ? `the outcome is unknown; call ${tool.name} again with the same arguments and confirmation: it reuses idempotency key ${key}, so it cannot ${tool.name === 'reserve' ? 'book' : 'cancel'} twice`
        : undefined;
    return errorResult(err, { secrets, resume }) as CallToolResult;
  }
}
