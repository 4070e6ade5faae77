// One handler per operation of src/api/operations.ts. Authentication, rate budgets,
// capability, idempotency and faults are applied by the pipeline in server.ts before a
// handler runs; handlers validate their input and answer with the resource.
import type { Operation } from '../api/operations.js';
import { BODY_TYPES, CITIES, ORDER_BY } from '../api/schemas.js';
import type { Credential } from './auth.js';
import { compareStamps, parseLocal } from './clock.js';
import type { SandboxContext } from './context.js';
import { apiError } from './errors.js';
import { parseJsonBody } from './http.js';
import { cardLinkUrl, extensionLinkUrl, paymentLinkUrl } from './links.js';
import { DEFAULT_SELECTION, carDateTotals, priceTrip, quoteFromBreakdown, tripDays } from './pricing.js';
import { assertAvailable } from './availability.js';
import { type RuleEnv, balanceOf, effectiveStatus } from './facts.js';
import {
  cancelReservation,
  createReservation,
  debtInvoiceStale,
  ensureDebtInvoice,
  priceExtension,
  recordAgentFlow,
  reservationOf,
} from './rules.js';
import { checkTrip, parseTripRequest, rejectUnknownFields } from './trip-request.js';
import { type AgentFlowRec, type CustomerRec, type SandboxState, customerById, invoicesOf, reservationsOf } from './state.js';
import {
  cardsView,
  carView,
  invoiceView,
  nowByCity,
  profileView,
  sortedInvoices,
  tripView,
  verificationView,
} from './views.js';

export interface OpRequest {
  ctx: SandboxContext;
  op: Operation;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Request headers with repeated headers kept apart. */
  headers: Record<string, string[] | undefined>;
  bodyText: string;
  credential: Credential;
  requestId: string;
}

/** `data` is wrapped in the envelope; `bare` is sent as is (the invoice list); `text` is the envelope already serialised. */
export type Payload = { data: unknown } | { bare: unknown } | { text: string };

type QueryHandler = (r: OpRequest) => Payload | Promise<Payload>;
/** Create and cancel run inside the state transaction that also records their idempotent result. */
type CommandHandler = (draft: SandboxState, env: RuleEnv, r: OpRequest) => Payload;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AGENT_CLIENT_RE = /^[\x20-\x7e]{1,64}$/;

/** The customer behind a key or app token; the pipeline guarantees one on `key` operations. */
function customerOf(r: OpRequest, state?: SandboxState): CustomerRec {
  const c = r.credential;
  if (c.kind !== 'key' && c.kind !== 'app') throw new Error(`operation ${r.op.id} reached without a customer`);
  if (!state) return c.customer;
  const current = customerById(state, c.customer.id);
  if (!current) throw apiError('invalid_credentials', 'The credential no longer belongs to a customer');
  return current;
}

/** Self-reported and unverified: kept only when 1 to 64 printable ASCII characters. */
export function agentClientOf(headers: Record<string, string[] | undefined>): string | null {
  const values = headers['x-agent-client'];
  return values?.length === 1 && AGENT_CLIENT_RE.test(values[0]) ? values[0] : null;
}

// ---------------------------------------------------------------- catalog

function singleParam(query: URLSearchParams, name: string): string | null {
  const all = query.getAll(name);
  if (all.length > 1) throw apiError('invalid_query_parameter', `${name} is given more than once`);
  return all[0] ?? null;
}

function intParam(query: URLSearchParams, name: string, code: 'invalid_pagination' | 'invalid_query_parameter', min: number, max: number, fallback: number | null) {
  const raw = singleParam(query, name);
  if (raw === null) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw apiError(code, max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer of at least ${min}` : `${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function enumParam<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T | null {
  const raw = singleParam(query, name);
  if (raw === null) return null;
  if (!allowed.includes(raw as T)) throw apiError('invalid_query_parameter', `${name} must be one of ${allowed.join(', ')}`);
  return raw as T;
}

const listCars: QueryHandler = (r) => {
  const q = r.query;
  const limit = intParam(q, 'limit', 'invalid_pagination', 1, 200, 50) as number;
  const offset = intParam(q, 'offset', 'invalid_pagination', 0, Number.MAX_SAFE_INTEGER, 0) as number;
  const city = enumParam(q, 'city', CITIES);
  const bodyType = enumParam(q, 'body_type', BODY_TYPES);
  const orderBy = enumParam(q, 'order_by', ORDER_BY);
  const makeId = intParam(q, 'make_id', 'invalid_query_parameter', 0, Number.MAX_SAFE_INTEGER, null);
  const modelId = intParam(q, 'model_id', 'invalid_query_parameter', 0, Number.MAX_SAFE_INTEGER, null);
  const from = singleParam(q, 'date_from');
  const to = singleParam(q, 'date_to');
  let dates: { checkin: number; checkout: number } | undefined;
  if ((from === null) !== (to === null)) throw apiError('date_range_incomplete', 'Send both date_from and date_to, or neither');
  if (from !== null && to !== null) {
    const checkin = parseLocal(from);
    const checkout = parseLocal(to);
    if (checkin === null || checkout === null) {
      throw apiError('invalid_date_format', `${checkin === null ? 'date_from' : 'date_to'} must be a real date in the form YYYY-MM-DDTHH:MM`);
    }
    if (checkout <= checkin) throw apiError('invalid_date_range', 'date_to must be after date_from');
    dates = { checkin, checkout };
  }

  const state = r.ctx.store.read();
  const env = r.ctx.env(state);
  const matching = env.fleet.cars.filter(
    (c) =>
      (city === null || c.city === city) &&
      (bodyType === null || c.body_type === bodyType) &&
      (makeId === null || c.make_id === makeId) &&
      (modelId === null || c.model_id === modelId),
  );
  const opts = { nowLocal: nowByCity(env.now), dates };
  let ordered = matching;
  if (orderBy) {
    // With dates the searched trip total is ordered, without them the day rate. Only the
    // price is computed for every match; full views are built for the page alone.
    const days = dates ? tripDays(dates.checkin, dates.checkout) : 0;
    const priced = matching.map((car) => ({ car, price: dates ? carDateTotals(priceTrip(car, days, DEFAULT_SELECTION)).display_trip_total_cents : car.day_rate_cents }));
    const sign = orderBy === 'price_asc' ? 1 : -1;
    priced.sort((a, b) => sign * (a.price - b.price) || a.car.car_id - b.car.car_id);
    ordered = priced.map((p) => p.car);
  }
  const page = ordered.slice(offset, offset + limit).map((c) => carView(state, c, opts));
  return { data: { cars: page, total: matching.length, has_more: offset + page.length < matching.length } };
};

// Reads kept as the JSON they answer, per committed state and per sandbox-clock minute. The
// store hands out a new state object whenever anything was committed (by this process or
// another, a clock change included), so an answer is never reused across a change;
// transactions never see these (they get their own drafts). A kept read depends on nothing
// but the state, the clock to the minute and what its key names (the car, the customer).
// A car's detail, for one, walks every booking of the car, its invoices and refunds.
// test/sandbox/read-cache.test.ts reads after a write, a clock change and another store's write.
const kept = new WeakMap<object, Map<string, string>>();

function keptAnswer(state: SandboxState, now: Date, key: string, data: () => unknown): { text: string } {
  let answers = kept.get(state);
  if (!answers) kept.set(state, (answers = new Map()));
  const id = `${key}@${Math.floor(now.getTime() / 60_000)}`;
  let text = answers.get(id);
  if (text === undefined) {
    if (answers.size >= 1_000) answers.clear();
    answers.set(id, (text = JSON.stringify({ data: data() })));
  }
  return { text };
}

const getCar: QueryHandler = (r) => {
  const state = r.ctx.store.read();
  const env = r.ctx.env(state);
  const car = env.fleet.byAlias.get(r.params.alias);
  if (!car) throw apiError('car_not_found', `No car with alias ${r.params.alias}`);
  return keptAnswer(state, env.now, `car:${car.car_id}`, () => carView(state, car, { nowLocal: nowByCity(env.now), detail: true }));
};

const quote: QueryHandler = (r) => {
  const body = parseJsonBody(r.bodyText, true);
  const state = r.ctx.store.read();
  const env = r.ctx.env(state);
  const customer = r.credential.kind === 'key' || r.credential.kind === 'app' ? customerOf(r, state) : null;
  const trip = checkTrip(state, env, parseTripRequest(body, 'quote'), customer);
  assertAvailable(state, trip.car, trip.request.checkin, trip.request.checkout);
  return { data: quoteFromBreakdown(trip.breakdown, trip.selection) };
};

// ---------------------------------------------------------------- account

const getProfile: QueryHandler = (r) => {
  const state = r.ctx.store.read();
  const customer = customerOf(r, state);
  const now = r.ctx.now(state);
  return keptAnswer(state, now, `profile:${customer.id}`, () => profileView(customer, now));
};

const getVerification: QueryHandler = (r) => {
  const state = r.ctx.store.read();
  return { data: verificationView(customerOf(r, state), r.ctx.now(state)) };
};

const listCards: QueryHandler = (r) => ({ data: cardsView(customerOf(r, r.ctx.store.read())) });

function newFlow(r: OpRequest, env: RuleEnv, customer: CustomerRec, fields: Pick<AgentFlowRec, 'action' | 'reservation_uuid' | 'payment_type' | 'checkout'>, url: (flowId: string) => string): AgentFlowRec {
  const id = env.newId();
  return {
    id,
    customer_id: customer.id,
    ...fields,
    agent_client: agentClientOf(r.headers),
    url: url(id),
    created_at: env.now.toISOString(),
  };
}

const manualAction = (flow: AgentFlowRec) => ({
  data: { action: flow.action, status: 'requires_user_action', url: flow.url, agent_flow_id: flow.id },
});

const cardAddLink: QueryHandler = (r) =>
  r.ctx.store.transact((draft) => {
    const env = r.ctx.env(draft);
    const customer = customerOf(r, draft);
    if (!customer.card_payments_enabled) throw apiError('card_payments_not_enabled', 'Card payments are not enabled for this account');
    const flow = newFlow(r, env, customer, { action: 'add_payment_card', reservation_uuid: null, payment_type: null, checkout: null }, (id) =>
      cardLinkUrl(r.ctx.appUrl, customer.card !== null, id),
    );
    recordAgentFlow(draft, flow);
    return manualAction(flow);
  });

// ---------------------------------------------------------------- trips and invoices

const listTrips: QueryHandler = (r) => {
  const state = r.ctx.store.read();
  const env = r.ctx.env(state);
  const trips = reservationsOf(state, customerOf(r, state).id);
  const active = trips.filter((t) => effectiveStatus(t, env) === 'new').sort((a, b) => compareStamps(a.date_checkin, b.date_checkin));
  const history = trips.filter((t) => effectiveStatus(t, env) !== 'new').sort((a, b) => compareStamps(b.date_checkin, a.date_checkin));
  return {
    data: {
      active: active.map((t) => tripView(state, env, t, false)),
      history: history.map((t) => tripView(state, env, t, false)),
    },
  };
};

function ownReservationUuid(r: OpRequest, invalid: 'reservation_not_found' | 'invalid_reservation_id'): string {
  const uuid = r.params.uuid;
  if (!UUID_RE.test(uuid)) {
    throw invalid === 'reservation_not_found'
      ? apiError('reservation_not_found', `No reservation ${uuid} for this customer`)
      : apiError('invalid_reservation_id', 'The reservation id must be a UUID');
  }
  return uuid.toLowerCase();
}

const getReservation: QueryHandler = async (r) => {
  const uuid = ownReservationUuid(r, 'reservation_not_found');
  let state = r.ctx.store.read();
  reservationOf(state, customerOf(r, state), uuid);
  // The side effect of reading: money owed gets a current debt invoice.
  if (debtInvoiceStale(invoicesOf(state, uuid))) {
    await r.ctx.store.transact((draft) => ensureDebtInvoice(draft, r.ctx.env(draft), uuid));
    state = r.ctx.store.read();
  }
  const res = reservationOf(state, customerOf(r, state), uuid);
  return { data: tripView(state, r.ctx.env(state), res, true) };
};

const listReservationInvoices: QueryHandler = (r) => {
  const uuid = ownReservationUuid(r, 'reservation_not_found');
  const state = r.ctx.store.read();
  reservationOf(state, customerOf(r, state), uuid);
  return { bare: sortedInvoices(invoicesOf(state, uuid)).map((i) => invoiceView(i)) };
};

const getInvoice: QueryHandler = (r) => {
  const id = r.params.uuid;
  const state = r.ctx.store.read();
  const inv = UUID_RE.test(id) ? state.invoices[id.toLowerCase()] : undefined;
  if (!inv || inv.customer_id !== customerOf(r, state).id) throw apiError('invoice_not_found', `No invoice ${id} for this customer`);
  return { data: invoiceView(inv) };
};

// ---------------------------------------------------------------- commands

const createReservationCmd: CommandHandler = (draft, env, r) => {
  const body = parseJsonBody(r.bodyText, true);
  return { data: createReservation(draft, env, customerOf(r, draft), body) };
};

const cancelReservationCmd: CommandHandler = (draft, env, r) => {
  const uuid = ownReservationUuid(r, 'reservation_not_found');
  return { data: cancelReservation(draft, env, customerOf(r, draft), uuid) };
};

// ---------------------------------------------------------------- links and extensions

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const paymentLink: QueryHandler = (r) => {
  const uuid = ownReservationUuid(r, 'invalid_reservation_id');
  const body = parseJsonBody(r.bodyText, true);
  if (!isObject(body)) throw apiError('invalid_request_body', 'The body must be a JSON object');
  rejectUnknownFields(body, ['payment_type']);
  const type = body.payment_type;
  if (type !== 'rent' && type !== 'deposit') throw apiError('invalid_payment_type', 'payment_type is required: rent or deposit');
  return r.ctx.store.transact((draft) => {
    const env = r.ctx.env(draft);
    const customer = customerOf(r, draft);
    const res = reservationOf(draft, customer, uuid);
    if (res.status === 'cancelled') throw apiError('reservation_cancelled', 'The reservation is cancelled');
    const invoices = invoicesOf(draft, uuid);
    const owed =
      type === 'rent' ? balanceOf(invoices) > 0 : invoices.some((i) => i.type === 'DEPOSIT' && i.billing_status === 'ISSUED');
    if (!owed) throw apiError('nothing_to_pay', `No unpaid ${type === 'rent' ? 'rent' : 'deposit'} invoice on this reservation`);
    const flow = newFlow(r, env, customer, { action: 'pay_reservation', reservation_uuid: uuid, payment_type: type, checkout: null }, (id) =>
      paymentLinkUrl(r.ctx.appUrl, uuid, type, id),
    );
    recordAgentFlow(draft, flow);
    return manualAction(flow);
  });
};

const extensionPrice: QueryHandler = (r) => {
  const uuid = ownReservationUuid(r, 'invalid_reservation_id');
  const body = parseJsonBody(r.bodyText, true);
  if (!isObject(body)) throw apiError('invalid_request_body', 'The body must be a JSON object');
  rejectUnknownFields(body, ['modification_type', 'new_checkout_date_time_local']);
  if (body.modification_type !== 'extend') throw apiError('invalid_request', 'modification_type must be extend');
  if (body.new_checkout_date_time_local === undefined) throw apiError('invalid_checkout', 'new_checkout_date_time_local is required');
  const state = r.ctx.store.read();
  const res = reservationOf(state, customerOf(r, state), uuid);
  const q = priceExtension(state, r.ctx.env(state), res, body.new_checkout_date_time_local);
  return { data: { ...q, currency: 'USD' } };
};

/** The target is `checkout` in the machine-readable description and `date_checkout` in the prose; both are accepted. */
function extensionTarget(body: unknown): string | null {
  if (body === undefined) return null;
  if (!isObject(body)) throw apiError('invalid_request_body', 'The body must be a JSON object');
  rejectUnknownFields(body, ['checkout', 'date_checkout']);
  const a = body.checkout ?? null;
  const b = body.date_checkout ?? null;
  if (a !== null && b !== null && a !== b) throw apiError('invalid_checkout', 'checkout and date_checkout disagree');
  const target = a ?? b;
  if (target !== null && typeof target !== 'string') throw apiError('invalid_checkout', 'checkout must be a string YYYY-MM-DDTHH:MM');
  return target;
}

const extensionLink: QueryHandler = (r) => {
  const uuid = ownReservationUuid(r, 'invalid_reservation_id');
  const target = extensionTarget(parseJsonBody(r.bodyText, false));
  return r.ctx.store.transact((draft) => {
    const env = r.ctx.env(draft);
    const customer = customerOf(r, draft);
    const res = reservationOf(draft, customer, uuid);
    if (effectiveStatus(res, env) !== 'new') throw apiError('reservation_not_active', 'Only a new reservation can be extended');
    if (target !== null) priceExtension(draft, env, res, target);
    const flow = newFlow(r, env, customer, { action: 'extend_reservation', reservation_uuid: uuid, payment_type: null, checkout: target }, (id) =>
      extensionLinkUrl(r.ctx.appUrl, uuid, target, id),
    );
    recordAgentFlow(draft, flow);
    return manualAction(flow);
  });
};

export const QUERY_HANDLERS: Record<string, QueryHandler> = {
  listCars,
  getCar,
  quote,
  getProfile,
  getVerification,
  listCards,
  cardAddLink,
  listTrips,
  getReservation,
  listReservationInvoices,
  getInvoice,
  paymentLink,
  extensionPrice,
  extensionLink,
};

export const COMMAND_HANDLERS: Record<string, CommandHandler> = {
  createReservation: createReservationCmd,
  cancelReservation: cancelReservationCmd,
};
