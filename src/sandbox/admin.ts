// Sandbox-only endpoints under /__sandbox/ (never under /v1): configuration, faults, the
// clock, counters for tests, and the customer actions that the web pages perform (pay,
// save a card, extend, confirm refunds) for tests that do not drive a browser.
// Unauthenticated: the server listens on 127.0.0.1 only, and what a web page on another site
// could send is refused (refusal below): a Host that is not loopback (DNS rebinding), an
// Origin other than the sandbox's own, and a state-changing request without
// Content-Type: application/json, which a cross-site page cannot send without a CORS
// preflight that the sandbox never grants.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { CITY_TIME_ZONES } from '../api/schemas.js';
import { localNow } from './clock.js';
import { PartialConfigSchema } from './config.js';
import type { SandboxContext } from './context.js';
import { ApiError, apiError } from './errors.js';
import { sandboxExtraCredentials, sandboxKeys } from './fixtures.js';
import { type Reply, errorReply, isJsonMediaType, jsonReply, newRequestId, parseJsonBody, readBody, send } from './http.js';
import { effectiveStatus } from './facts.js';
import { confirmRefunds, extendCheckout, payRentInvoice, placeDepositHold, saveCard } from './rules.js';
import { anchorDay, findCustomer, readTagged, reservationsOf } from './state.js';

type AdminHandler = (ctx: SandboxContext, body: unknown, url: URL) => Reply | Promise<Reply>;

const ok = (payload: unknown, status = 200) => jsonReply(status, payload);

/** Any zod schema: the config's is a zod/mini one (src/sandbox/config.ts). */
function parse<T>(schema: z.core.$ZodType<T>, body: unknown): T {
  const parsed = z.safeParse(schema, body ?? {});
  if (!parsed.success) throw apiError('invalid_request', z.prettifyError(parsed.error));
  return parsed.data;
}

function customerParam(ctx: SandboxContext, value: string | null) {
  if (!value) throw apiError('invalid_request', 'customer is required (id or handle: dana, omar, lee, sam, pat)');
  const customer = findCustomer(ctx.store.read(), value);
  if (!customer) throw apiError('not_found', `No customer ${value}`);
  return customer;
}

const overview: AdminHandler = (ctx) => {
  const state = ctx.store.read();
  return ok({
    base_url: ctx.baseUrl,
    app_url: ctx.appUrl,
    admin_url: ctx.adminUrl,
    state_path: ctx.store.path,
    seed: state.seed,
    fleet_size: state.fleetSize,
    anchor: state.anchor,
    now: ctx.now(state).toISOString(),
    clock_offset_ms: state.clockOffsetMs,
    keys: sandboxKeys(state.seed),
    extra_credentials: sandboxExtraCredentials(state.seed),
    customers: state.customers.map((c) => ({ id: c.id, handle: c.handle, name: `${c.first_name} ${c.last_name}` })),
    config: ctx.config,
    faults: ctx.faults.list(),
  });
};

const keys: AdminHandler = (ctx) => {
  const seed = ctx.store.read().seed;
  return ok({ ...sandboxKeys(seed), ...sandboxExtraCredentials(seed) });
};

const patchConfig: AdminHandler = (ctx, body) => {
  Object.assign(ctx.config, parse(PartialConfigSchema, body));
  return ok(ctx.config);
};

const addFaults: AdminHandler = (ctx, body) => {
  const added = [];
  // All or nothing: a bad entry removes the ones added before it.
  for (const spec of Array.isArray(body) ? body : [body]) {
    try {
      added.push(ctx.faults.add(spec));
    } catch (err) {
      for (const a of added) ctx.faults.remove(a.id);
      throw apiError('invalid_request', (err as Error).message);
    }
  }
  return ok({ faults: added }, 201);
};

const ClockBody = z
  .strictObject({
    advance_seconds: z.number().optional(),
    offset_ms: z.number().int().optional(),
    now: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((b) => [b.advance_seconds, b.offset_ms, b.now].filter((v) => v !== undefined).length === 1, {
    message: 'send exactly one of advance_seconds, offset_ms, now',
  });

const clockView = (ctx: SandboxContext) => {
  const state = ctx.store.read();
  const now = ctx.now(state);
  return {
    now: now.toISOString(),
    offset_ms: state.clockOffsetMs,
    local: { la: localNow(now, CITY_TIME_ZONES.la), miami: localNow(now, CITY_TIME_ZONES.miami) },
  };
};

const setClock: AdminHandler = async (ctx, body) => {
  const b = parse(ClockBody, body);
  await ctx.store.transact((draft) => {
    const base = ctx.now(draft).getTime() - draft.clockOffsetMs;
    if (b.advance_seconds !== undefined) draft.clockOffsetMs += Math.round(b.advance_seconds * 1000);
    else if (b.offset_ms !== undefined) draft.clockOffsetMs = b.offset_ms;
    else draft.clockOffsetMs = Date.parse(b.now as string) - base;
  });
  return ok(clockView(ctx));
};

const listReservations: AdminHandler = (ctx, _body, url) => {
  const customer = customerParam(ctx, url.searchParams.get('customer'));
  const state = ctx.store.read();
  const env = ctx.env(state);
  const wanted = url.searchParams.get('status');
  const list = reservationsOf(state, customer.id)
    .map((r) => ({ uuid: r.uuid, status: effectiveStatus(r, env), car_alias: env.fleet.byId.get(r.car_id)?.car_alias ?? null, city: env.fleet.byId.get(r.car_id)?.city ?? null, date_checkin: r.date_checkin, date_checkout: r.date_checkout }))
    .filter((r) => wanted === null || r.status === wanted);
  return ok({ customer: customer.id, handle: customer.handle, count: list.length, uuids: list.map((r) => r.uuid), reservations: list });
};

const PayBody = z.strictObject({ reservation_uuid: z.string(), payment_type: z.enum(['rent', 'reservation', 'deposit']) });

const pay: AdminHandler = async (ctx, body) => {
  const b = parse(PayBody, body);
  const result = await ctx.store.transact((draft) => {
    const env = ctx.env(draft);
    return b.payment_type === 'deposit' ? placeDepositHold(draft, env, b.reservation_uuid) : payRentInvoice(draft, env, b.reservation_uuid);
  });
  return ok(result);
};

const CardBody = z.strictObject({
  customer: z.string(),
  card_brand: z.string().default('visa'),
  last4: z.string().default('4242'),
  exp_month: z.number().int().default(12),
  exp_year: z.number().int().optional(),
});

const addCard: AdminHandler = async (ctx, body) => {
  const b = parse(CardBody, body);
  const customer = customerParam(ctx, b.customer);
  const card = await ctx.store.transact((draft) => {
    const env = ctx.env(draft);
    return saveCard(draft, env, customer.id, { card_brand: b.card_brand, last4: b.last4, exp_month: b.exp_month, exp_year: b.exp_year ?? env.now.getUTCFullYear() + 3 });
  });
  return ok(card, 201);
};

const removeCard: AdminHandler = async (ctx, body) => {
  const b = parse(z.strictObject({ customer: z.string() }), body);
  const customer = customerParam(ctx, b.customer);
  const removed = await ctx.store.transact((draft) => {
    const c = draft.customers.find((x) => x.id === customer.id);
    if (!c || c.card === null) return false;
    c.card = null;
    return true;
  });
  return ok({ customer: customer.handle, removed });
};

const ExtendBody = z.strictObject({ reservation_uuid: z.string(), checkout: z.string() });

const extend: AdminHandler = async (ctx, body) => {
  const b = parse(ExtendBody, body);
  return ok(await ctx.store.transact((draft) => extendCheckout(draft, ctx.env(draft), b.reservation_uuid, b.checkout)));
};

const ReservationBody = z.strictObject({ reservation_uuid: z.string() });

const refundsConfirm: AdminHandler = async (ctx, body) => {
  const b = parse(ReservationBody, body);
  const confirmed = await ctx.store.transact((draft) => confirmRefunds(draft, ctx.env(draft), b.reservation_uuid));
  return ok({ confirmed });
};

const agentFlows: AdminHandler = (ctx, _body, url) => {
  const state = ctx.store.read();
  const who = url.searchParams.get('customer');
  const customer = who === null ? null : customerParam(ctx, who);
  const flows = customer ? readTagged(state, 'agentFlows', `c:${customer.id}`) : Object.values(state.agentFlows);
  return ok({ count: flows.length, flows });
};

const requests: AdminHandler = (ctx, _body, url) => {
  const all = ctx.requestLog.entries();
  const limit = Number(url.searchParams.get('limit') ?? all.length);
  return ok({ requests: all.slice(-Math.max(0, limit)) });
};

const stats: AdminHandler = (ctx) => {
  const state = ctx.store.read();
  const byOperation: Record<string, number> = {};
  for (const entry of ctx.requestLog.entries()) if (entry.operation) byOperation[entry.operation] = (byOperation[entry.operation] ?? 0) + 1;
  return ok({
    anchor_day: anchorDay(state),
    reservations: Object.keys(state.reservations).length,
    invoices: Object.keys(state.invoices).length,
    refunds: Object.keys(state.refunds).length,
    idempotency_records: Object.keys(state.idempotency).length,
    agent_flows: Object.keys(state.agentFlows).length,
    in_flight: ctx.inflight.size(),
    requests_by_operation: byOperation,
  });
};

const reset: AdminHandler = async (ctx) => {
  await ctx.store.reseed();
  ctx.rateLimiter.reset();
  return ok(clockView(ctx));
};

/** By `METHOD /path` under /__sandbox; exported for the test that walks every GET route (test/sandbox/head.test.ts). */
export const ADMIN_ROUTES: Record<string, AdminHandler> = {
  'GET /': overview,
  'GET /keys': keys,
  'GET /config': (ctx) => ok(ctx.config),
  'PATCH /config': patchConfig,
  'GET /faults': (ctx) => ok({ faults: ctx.faults.list() }),
  'POST /faults': addFaults,
  'DELETE /faults': (ctx) => {
    ctx.faults.clear();
    return ok({ faults: [] });
  },
  'GET /clock': (ctx) => ok(clockView(ctx)),
  'POST /clock': setClock,
  'GET /reservations': listReservations,
  'POST /pay': pay,
  'POST /cards': addCard,
  'DELETE /cards': removeCard,
  'POST /extend': extend,
  'POST /refunds/confirm': refundsConfirm,
  'GET /agent-flows': agentFlows,
  'GET /requests': requests,
  'DELETE /requests': (ctx) => {
    ctx.requestLog.clear();
    return ok({ requests: [] });
  },
  'GET /stats': stats,
  'POST /rate-limits/reset': (ctx) => {
    ctx.rateLimiter.reset();
    return ok({ reset: true });
  },
  'POST /reset': reset,
};

const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Why a request that a browser on another site could have made is refused; null when it is fine. */
export function refusal(req: IncomingMessage): ApiError | null {
  const host = req.headers.host;
  if (host === undefined || !LOOPBACK_HOST.test(host)) {
    return apiError('admin_request_refused', 'The admin endpoints answer only requests addressed to a loopback host (127.0.0.1, localhost, [::1])');
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${host.toLowerCase()}`) {
    return apiError('admin_request_refused', 'The admin endpoints refuse requests from pages of another origin');
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return apiError('admin_request_refused', 'The admin endpoints refuse requests from pages of another site');
  }
  if (STATE_CHANGING.has(req.method ?? '') && !isJsonMediaType(req.headersDistinct['content-type'])) {
    return apiError('unsupported_media_type', 'A request that changes the sandbox must carry Content-Type: application/json');
  }
  return null;
}

export async function handleAdmin(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const sub = url.pathname.slice('/__sandbox'.length).replace(/\/+$/, '') || '/';
  const requestId = newRequestId();
  let reply: Reply;
  try {
    const refused = refusal(req);
    if (refused) throw refused;
    const { text } = await readBody(req);
    const faultMatch = /^\/faults\/([\w-]+)$/.exec(sub);
    if (req.method === 'DELETE' && faultMatch) {
      if (!ctx.faults.remove(faultMatch[1])) throw apiError('not_found', `No fault ${faultMatch[1]}`);
      reply = ok({ faults: ctx.faults.list() });
    } else {
      // HEAD is answered as GET (RFC 9110): node:http sends the headers and leaves the body out.
      const handler = ADMIN_ROUTES[`${req.method === 'HEAD' ? 'GET' : req.method} ${sub}`];
      if (!handler) throw apiError('not_found', `No admin endpoint ${req.method} ${url.pathname}`);
      reply = await handler(ctx, parseJsonBody(text, false), url);
    }
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    reply = errorReply(err, requestId);
  }
  send(res, reply, { 'X-Request-Id': requestId });
}
