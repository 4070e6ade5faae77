// The HTTP front of the sandbox: `/v1/...` is the API, `/app/...` the customer pages,
// `/__sandbox/...` the admin and fault endpoints. The API pipeline, in order:
// faults that answer before anything -> credentials -> rate budget -> 401 -> faults that
// disable the operation -> capability -> idempotency gate -> latency/drop before commit ->
// handler (commands in one transaction with their idempotent result) -> faults after commit.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Credential, credentialHeaders, resolveCredential } from './auth.js';
import type { PendingLogEntry, SandboxContext } from './context.js';
import { ApiError, apiError } from './errors.js';
import { COMMAND_HANDLERS, type OpRequest, type Payload, QUERY_HANDLERS, agentClientOf } from './handlers.js';
import { type Reply, bodyless, errorReply, isJsonMediaType, jsonReply, newRequestId, readBody, send } from './http.js';
import { commandFingerprint, readIdempotencyKey } from './idempotency.js';
import { settingsApiKeysUrl } from './links.js';
import type { Budget } from './ratelimit.js';
import { matchRoute } from './router.js';
import { isStateError } from './store.js';

export function createRequestListener(ctx: SandboxContext): RequestListener {
  return (req, res) => {
    route(ctx, req, res).catch((err: unknown) => {
      const requestId = newRequestId();
      // the store's own errors (a full disk, a read-only file, a file a Node 22 process
      // converted under this Node 20 one) are one line that says what to do: never a 500
      if (isStateError(err)) {
        if (!ctx.quiet) console.error(`sandbox: ${err.message}`);
        if (!res.headersSent) send(res, errorReply(apiError('sandbox_state_unavailable', err.message), requestId), { 'X-Request-Id': requestId });
        else res.destroy();
        return;
      }
      if (!ctx.quiet) console.error(`sandbox: ${(err as Error).stack ?? String(err)}`);
      if (!res.headersSent) send(res, errorReply(apiError('internal_error', (err as Error).message), requestId), { 'X-Request-Id': requestId });
      else res.destroy();
    });
  };
}

async function route(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = url.pathname;
  // Admin, pages and the OpenAPI document are loaded when first asked for: a CLI command's
  // embedded sandbox usually serves the API only, and loading them costs every command.
  if (path === '/__sandbox' || path.startsWith('/__sandbox/')) return (await import('./admin.js')).handleAdmin(ctx, req, res, url);
  if (path === '/app' || path.startsWith('/app/')) return (await import('./pages.js')).handlePage(req, res, ctx);
  if (path === '/v1/openapi.json') return send(res, (await import('./openapi.js')).openapiReply(req.method ?? 'GET', ctx.baseUrl, newRequestId()));
  if (path.startsWith('/v1/')) return handleApi(ctx, req, res, url, path.slice('/v1'.length));
  send(res, errorReply(apiError('not_found', `No route ${req.method} ${path}`), newRequestId()));
}

const payloadReply = (payload: Payload): Reply =>
  'text' in payload ? { status: 200, text: payload.text } : 'bare' in payload ? jsonReply(200, payload.bare) : jsonReply(200, { data: payload.data });

const toReply = (err: unknown, requestId: string): Reply => {
  if (err instanceof ApiError) return errorReply(err, requestId);
  throw err;
};

/**
 * The budget a call spends (Rate limiting rules 1-4): a credential-free catalog call the
 * catalog's, a valid key its own, anything else (app token, invalid or conflicting
 * credentials, an anonymous `/my/...` call) the general one. A catalog call that carries a
 * credential is refused, after spending the budget that credential selects.
 */
function budgetOf(auth: string, credential: Credential, ip: string): { budget: Budget; id: string } {
  if (credential.kind === 'key') return { budget: 'key', id: credential.key };
  if (credential.kind === 'none' && auth !== 'key') return { budget: 'catalog', id: ip };
  return { budget: 'general', id: ip };
}

async function handleApi(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
  const started = Date.now();
  const requestId = newRequestId();
  const method = req.method ?? 'GET';
  const headers = req.headersDistinct as Record<string, string[] | undefined>;
  const log: PendingLogEntry = {
    at: started,
    request_id: requestId,
    method,
    path: url.pathname,
    operation: null,
    status: null,
    credentials: credentialHeaders(headers),
    idempotency_key: headers['idempotency-key']?.[0] ?? null,
    agent_client: agentClientOf(headers),
    replayed: false,
    duration_ms: 0,
  };
  const body = bodyless(req) ?? (await readBody(req));
  let scope: string | null = null;
  let reply: Reply | null;
  try {
    reply = await runPipeline();
  } catch (err) {
    reply = toReply(err, requestId);
  } finally {
    if (scope !== null) ctx.inflight.leave(scope);
  }

  log.status = reply?.status ?? null;
  log.duration_ms = Date.now() - started;
  ctx.requestLog.push(log);
  if (!ctx.quiet) console.error(`sandbox: ${method} ${url.pathname}${url.search} -> ${reply ? reply.status : 'dropped'} (${log.duration_ms} ms)`);
  if (reply === null) {
    res.socket?.destroy();
    return;
  }
  send(res, reply, { 'X-Request-Id': requestId });

  async function runPipeline(): Promise<Reply | null> {
    const match = matchRoute(method, path);
    if (match.kind === 'not_found') throw apiError('not_found', `No operation ${method} /v1${path}`);
    if (match.kind === 'method_not_allowed') {
      const err = apiError('method_not_allowed', `${method} is not allowed here; allowed: ${match.allowed.join(', ')}`);
      return { ...errorReply(err, requestId), headers: { Allow: match.allowed.join(', ') } };
    }
    const op = match.op;
    log.operation = op.id;
    const faults = ctx.faults;

    const early = faults.take(op.id, 'error', (f) => !f.commit);
    if (early) throw apiError(early.code);

    const state = ctx.store.read();
    const credential: Credential = resolveCredential(state, headers);
    const { budget, id } = budgetOf(op.auth, credential, req.socket.remoteAddress ?? 'unknown');
    const retryAfter = ctx.rateLimiter.spend(budget, id, ctx.now(state).getTime());
    if (retryAfter !== null) throw apiError('rate_limited', `The ${budget} rate budget is exhausted; retry in ${retryAfter} s`, retryAfter);
    // Authentication rule 1: anonymous operations take no credentials. Ignoring one would hide
    // a client that leaks its key on every catalog call, so it is refused instead.
    if (op.auth === 'none' && log.credentials !== 'none') {
      throw apiError('credentials_not_accepted', `${method} /v1${op.path} is anonymous: send neither Authorization nor X-API-Key`);
    }
    if (credential.kind === 'conflicting') throw apiError('conflicting_credentials', 'Send exactly one of Authorization and X-API-Key');
    if (credential.kind === 'invalid') throw apiError('invalid_credentials', 'The credential is invalid, revoked or inactive');
    if (op.auth === 'key' && credential.kind === 'none') {
      throw apiError('invalid_credentials', 'This operation needs a customer API key: Authorization: Bearer svc_... or X-API-Key: svc_...');
    }
    // "not yet available to keys": an anonymous or app-token call is not refused, nor does it use the fault up
    if (credential.kind === 'key' && faults.take(op.id, 'operation_not_enabled')) throw apiError('api_key_operation_not_enabled', `${op.id} is not available to API keys yet`);
    if (op.capability === 'booking_write' && credential.kind === 'key' && credential.capability !== 'booking_write') {
      throw apiError(
        'api_key_write_upgrade_required',
        `This key is read_only. Create a booking_write key at ${settingsApiKeysUrl(ctx.appUrl)} and use it for this operation.`,
      );
    }

    // Unknown query parameters are ignored: the spec lists no error for them on any read.
    const r: OpRequest = { ctx, op, params: match.params, query: url.searchParams, headers, bodyText: body.text, credential, requestId };
    if (body.tooLarge) throw apiError('invalid_request_body', 'The body is larger than 1 MiB');
    // A body is JSON, said so: a text/plain body is what a cross-site form can send.
    if (body.text.trim() !== '' && !isJsonMediaType(headers['content-type'])) {
      throw apiError('invalid_request_body', 'Send the body with Content-Type: application/json');
    }

    let fingerprint = '';
    if (op.idempotent) {
      const key = readIdempotencyKey(headers['idempotency-key']);
      // Only API keys must send one; the application's own token may omit it.
      if (key === undefined && credential.kind === 'key') {
        throw apiError('idempotency_key_required', 'Send an Idempotency-Key header (a fresh UUID v4 per new command)');
      }
      if (key !== undefined && (credential.kind === 'key' || credential.kind === 'app')) {
        const candidate = `${credential.customer.id}:${key}`;
        fingerprint = commandFingerprint(op.id, r.params.uuid ?? '', body.text);
        const done = state.idempotency[candidate];
        if (done) {
          if (done.operation !== op.id || done.fingerprint !== fingerprint) throw mismatch();
          log.replayed = true;
          return afterCommit(await beforeCommit(() => replay(done)));
        }
        ctx.inflight.enter(candidate, fingerprint);
        scope = candidate;
      }
    }

    return afterCommit(
      await beforeCommit(async () => {
        const command = COMMAND_HANDLERS[op.id];
        if (!command) return payloadReply(await QUERY_HANDLERS[op.id](r));
        return ctx.store.transact((draft) => {
          const done = scope ? draft.idempotency[scope] : undefined;
          // Another process sharing the state file finished the same command meanwhile.
          if (done) {
            log.replayed = done.fingerprint === fingerprint;
            return log.replayed ? replay(done) : errorReply(mismatch(), requestId);
          }
          const env = ctx.env(draft);
          let result: Reply;
          try {
            result = payloadReply(command(draft, env, r));
          } catch (err) {
            result = toReply(err, requestId);
          }
          if (scope) {
            draft.idempotency[scope] = { operation: op.id, fingerprint, status: result.status, body: result.text, created_at: env.now.toISOString() };
          }
          return result;
        });
      }),
    );

    async function beforeCommit(run: () => Reply | Promise<Reply>): Promise<Reply | null> {
      const delay = faults.take(op.id, 'latency', (f) => f.when === 'before_commit');
      if (delay) await sleep(delay.ms);
      if (faults.take(op.id, 'drop', (f) => f.when === 'before_commit')) return null;
      return run();
    }

    async function afterCommit(done: Reply | null): Promise<Reply | null> {
      if (done === null) return null;
      let out = done;
      const late = faults.take(op.id, 'error', (f) => f.commit);
      if (late) out = errorReply(apiError(late.code), requestId);
      const delay = faults.take(op.id, 'latency', (f) => f.when === 'after_commit');
      if (delay) await sleep(delay.ms);
      if (faults.take(op.id, 'drop', (f) => f.when === 'after_commit')) return null;
      const malformed = faults.take(op.id, 'malformed');
      if (malformed) {
        out = { ...out, text: malformed.body === 'invalid_json' ? out.text.slice(0, Math.max(1, Math.floor(out.text.length / 2))) + '\u0000' : '{"data":{"unexpected":true}}' };
      }
      return out;
    }
  }

  function mismatch() {
    return apiError('idempotency_mismatch', 'This Idempotency-Key was used for a different command; use a new key for a new command');
  }

  function replay(done: { status: number; body: string }): Reply {
    return { status: done.status, text: done.body, headers: { 'Idempotent-Replayed': 'true' } };
  }
}
