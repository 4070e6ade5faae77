// The MCP server over stdio: the tools of tools.ts on the command's own profile, client and
// journal. Which tools exist is decided once, here, before the server answers anything:
// reserve and cancel_reservation only with --allow-booking and a key the API confirms is
// booking_write. Hosts may ignore annotations, so safety comes from what is registered.
//
// stdout carries only the protocol; notes, progress and --debug go to stderr (the host's
// log). The server ends cleanly when stdin closes, on SIGTERM or Ctrl-C, after the tool
// calls in flight have finished (a create or cancel then settles its journal entry).
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { READ_RETRY, type ApiClient } from '../api/client.js';
import { Api } from '../api/endpoints.js';
import { OPERATIONS, type Operation } from '../api/operations.js';
import { scrubSecrets } from '../text/redact.js';
import type { Context } from '../cli/context.js';
import { services, type Target } from '../cli/services.js';
import { JournaledWrite } from '../booking/journaled-write.js';
import { parseIntOption } from '../input/parse.js';
import { configDir } from '../store/paths.js';
import { installSecret } from '../store/install-secret.js';
import { Confirmations } from './confirmation.js';
import { serveHttp } from './http.js';
import { CliError, usageError } from '../errors.js';
import { Output } from '../render/output.js';
import { clean, cleanText } from '../text/sanitize.js';
import { errorResult, okResult } from './results.js';
import { moreTools, TOOLS, TOOLSETS, type ToolDef, type ToolDeps, type Toolset } from './tools.js';

export interface McpInput {
  allowBooking?: boolean;
  /** Streamable HTTP on loopback instead of stdio. */
  http?: boolean;
  port?: string;
  /** Where the bearer token goes (0600) instead of stderr. */
  tokenFile?: string;
  /** Comma-separated toolset names (TOOLSETS); default: every read-only one. */
  toolsets?: string;
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

  const shared = {
    target,
    out,
    now: () => ctx.now(),
    writer: writes.ok ? new JournaledWrite(quiet, out, target) : undefined,
    // only a server that may book issues confirmations (and so makes the install's secret)
    confirmations: writes.ok ? new Confirmations(installSecret(configDir(ctx.env)), () => ctx.now()) : undefined,
  };
  const inflight = new Set<Promise<unknown>>();
  const offered = [...toolsByOperation(), ...moreTools()].filter(([op, tool]) => toolsets.has(tool.toolset) && (!isWrite(op) || writes.ok));

  /** One MCP server (one per connection: stdio has one, HTTP one per session), all on the same tools, journal and secret. */
  const createServer = (): McpServer => {
    const server = new McpServer({ name: 'carrental', title: 'carrental', version: ctx.version }, { capabilities: { tools: {} } });
    const deps: ToolDeps = {
      ...shared,
      api: () => new Api(client, agentClientName(server.server.getClientVersion(), ctx.version)),
      askCustomer: () => (server.server.getClientCapabilities()?.elicitation ? (message, field) => askThroughHost(server, message, field) : undefined),
    };
    for (const [op, tool] of offered) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.input as never, annotations: annotationsFor(op, tool.title) },
        ((args: unknown) => {
          const call = callTool(tool, args, deps, secrets, log);
          inflight.add(call);
          void call.finally(() => inflight.delete(call));
          return call;
        }) as never,
      );
    }
    server.server.onerror = (err) => log(`protocol error: ${err.message}`);
    return server;
  };
  if ((input.allowBooking || toolsets.has('booking')) && !writes.ok) log(`reserve and cancel_reservation are not offered: ${writes.why}`);
  const serving = `${offered.length} tools (${[...toolsets].join(', ')})`;
  const mode = `for profile "${target.profile}" at ${describeTarget(target)}${writes.ok ? ' (booking allowed)' : ' (read-only)'}`;

  if (input.http) {
    return serveHttp({ ctx, port: input.port, tokenFile: input.tokenFile, needsToken: !target.sandbox, createServer, inflight, log, describe: `${serving} ${mode}` });
  }
  log(`serving ${serving} over stdio ${mode}`);
  const server = createServer();

  const transport = new StdioServerTransport(stdin, stdout);
  // answers still being written when stdin closes must reach the host before we stop
  let sending = 0;
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    sending++;
    try {
      await send(message);
    } finally {
      sending--;
    }
  };
  const stopped = new Promise<string>((resolve) => {
    stdin.once('end', () => resolve('stdin closed'));
    stdin.once('close', () => resolve('stdin closed'));
    stdout.once('error', (err: Error) => resolve(`stdout failed (${err.message})`));
    server.server.onclose = () => resolve('transport closed');
    if (ctx.signal.aborted) resolve('interrupted');
    ctx.signal.addEventListener('abort', () => resolve('interrupted'), { once: true });
    const onTerm = () => resolve('SIGTERM');
    process.once('SIGTERM', onTerm);
    ctx.onCleanup(() => void process.off('SIGTERM', onTerm));
  });
  await server.connect(transport);
  const why = await stopped;
  if (inflight.size) log(`${why}: finishing ${inflight.size} tool call(s) in flight`);
  await Promise.allSettled([...inflight]);
  // the SDK sends a tool's answer a few promise turns after the tool resolved
  for (let turns = 0; turns < 100 && (turns < 2 || sending > 0); turns++) await new Promise((r) => setImmediate(r));
  await server.close().catch(() => undefined);
  log(`stopped: ${why}`);
  return 0;
}

/** A yes/no form through the host (MCP elicitation): yes only when accepted and ticked. */
async function askThroughHost(server: McpServer, message: string, field: string): Promise<'accept' | 'decline' | 'cancel'> {
  const answer = await server.server.elicitInput({
    message,
    requestedSchema: {
      type: 'object',
      properties: { [field]: { type: 'boolean', title: field === 'reserve' ? 'Reserve it' : 'Cancel it', description: message } },
      required: [field],
    },
  });
  if (answer.action !== 'accept') return answer.action;
  return answer.content?.[field] === true ? 'accept' : 'decline';
}

function describeTarget(target: Target): string {
  return target.embedded ? `the embedded sandbox (${target.baseUrl})` : target.baseUrl;
}

async function callTool(tool: ToolDef, args: unknown, deps: ToolDeps, secrets: Array<string | undefined>, log: (line: string, stack?: boolean) => void): Promise<CallToolResult> {
  let key: string | undefined;
  const callDeps: ToolDeps = { ...deps, onWriteKey: (k) => (key = k) };
  try {
    const structured = await tool.run(args as never, callDeps);
    return okResult(structured, secrets);
  } catch (err) {
    if (!(err instanceof CliError)) log(`${tool.name} failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, true);
    const resume =
      key && err instanceof CliError && err.kind === 'unavailable'
        ? `the outcome is unknown; call ${tool.name} again with the same arguments and confirmation: it reuses idempotency key ${key}, so it cannot ${tool.name === 'reserve' ? 'book' : 'cancel'} twice`
        : undefined;
    return errorResult(err, { secrets, resume });
  }
}
