// The contract check of a deployment: every deployed read operation, called with real
// inputs found on the way (a car from the list, the customer's trips and invoices), each
// answer checked against the spec (check.ts); a random uuid must be a 404; every 429 and
// 503 met must carry Retry-After. With a write flow (doctor --contract --write) it also
// reserves a far-future trip, reads it back, asks for a payment link and cancels it.
//
// It creates nothing unless the write flow is given. One read is chosen with care: reading
// a reservation while money is owed prepares a debt invoice, so getReservation reads a trip
// whose trips-list entry owes nothing (balance_cents <= 0), or none.
import { randomUUID } from 'node:crypto';
import type { ApiClient, AuthMode, RequestSpec, Schema } from '../api/client.js';
import { NO_RETRY } from '../api/client.js';
import * as S from '../api/schemas.js';
import { CliError } from '../errors.js';
import { clean } from '../text/sanitize.js';
import { checkPayload, checkRetryAfter, seen, type Answer, type Finding } from './check.js';
import { RULES, type RuleId } from './rules.js';

export type OpStatus = 'checked' | 'not_deployed' | 'skipped' | 'failed';

export interface OpReport {
  /** Operation id (operations.ts), or `<id>:404` for the unknown-uuid probe. */
  id: string;
  /** The request, e.g. `GET /cars/toyota-camry-1001`. */
  request: string;
  status: OpStatus;
  /** The rules this answer was checked against (one JUnit test case each). */
  rules: RuleId[];
  detail: string;
}

export interface ContractReport {
  ok: boolean;
  violations: number;
  operations: OpReport[];
  findings: Finding[];
  /** What could not be checked and needs a person (a failed request, a reservation left active). */
  problems: string[];
}

/**
 * The journaled create and cancel of the write flow (the command's JournaledWrite, whose
 * retries happen inside the client): `met` is told of every 429 and 503 answer on the way,
 * with its Retry-After as sent (undefined when there was none).
 */
export type Met = (status: number, retryAfter: string | undefined) => void;
export interface WriteFlow {
  create(body: S.ReservationCreateRequest, met: Met): Promise<Answer>;
  cancel(uuid: string, met: Met): Promise<Answer>;
}

export interface ContractOptions {
  client: ApiClient;
  /** A key is configured: the /my/... reads are checked. */
  hasKey: boolean;
  now: Date;
  sleep: (ms: number) => Promise<void>;
  agentClient: string;
  write?: WriteFlow;
  progress?: (line: string) => void;
  /** Said at once (not only in the report, which an interrupted run never prints). */
  warn?: (line: string) => void;
}

/** The payload rules every checked answer is held to. */
const PAYLOAD_RULES: RuleId[] = ['envelope', 'required', 'type', 'integer-cents', 'car-local-date', 'closed-set'];
/** Answers that hold invoices are held to the UTC rule of `created_at` too; verification and payment status to day dates. */
const WITH_INVOICES: RuleId[] = [...PAYLOAD_RULES, 'utc-date'];

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** At most this many answers of one request: a 429 or 503 is asked again after its Retry-After. */
const ATTEMPTS = 3;
/** A Retry-After longer than this is not waited for: the check reports the answer instead. */
const MAX_WAIT_S = 30;

/** Car-local `YYYY-MM-DDTHH:MM`, `days` from now at `hour`:00. */
function futureLocal(now: Date, days: number, hour = 10): string {
  return `${new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10)}T${String(hour).padStart(2, '0')}:00`;
}

function addDay(local: string): string {
  const d = new Date(`${local.slice(0, 10)}T00:00:00Z`);
  return `${new Date(d.getTime() + 86_400_000).toISOString().slice(0, 10)}${local.slice(10)}`;
}

/** The error_code of an error body, printable (a server's string). */
const errorCode = (body: unknown) => (typeof body === 'object' && body !== null && typeof (body as { error_code?: unknown }).error_code === 'string' ? clean((body as { error_code: string }).error_code) : undefined);

export async function runContract(opts: ContractOptions): Promise<ContractReport> {
  const operations: OpReport[] = [];
  const findings: Finding[] = [];
  const problems: string[] = [];
  const say = (line: string) => opts.progress?.(line);

  /** One request, 429 and 503 asked again after their Retry-After, each one checked for it. */
  const send = async (operation: string, spec: Omit<RequestSpec<unknown>, 'envelope' | 'allowErrorStatus' | 'retry'>): Promise<Answer> => {
    for (let attempt = 1; ; attempt++) {
      const res = await opts.client.request<unknown>({ ...spec, envelope: false, allowErrorStatus: true, retry: NO_RETRY });
      const answer: Answer = { status: res.status, headers: res.headers, text: res.text, body: res.body };
      const missing = checkRetryAfter(answer, operation);
      if (missing) findings.push(missing);
      if ((answer.status !== 429 && answer.status !== 503) || attempt >= ATTEMPTS) return answer;
      const asked = Number(answer.headers['retry-after']);
      const waitS = Number.isInteger(asked) && asked >= 1 ? asked : 2;
      if (waitS > MAX_WAIT_S) return answer;
      say(`${spec.method} ${spec.path}: HTTP ${answer.status}, asking again in ${waitS} s`);
      await opts.sleep(waitS * 1000);
    }
  };

  const record = (id: string, request: string, status: OpStatus, rules: RuleId[], detail: string) => {
    operations.push({ id, request, status, rules, detail });
    if (status === 'failed') problems.push(`${id} (${request}): ${detail}`);
  };

  /**
   * Calls a read and checks its answer. Returns the payload when it was a 2xx, undefined
   * otherwise (the operation is then recorded as not deployed, skipped or failed).
   */
  const read = async (
    id: string,
    spec: { method: 'GET' | 'POST'; path: string; query?: Record<string, string | number>; body?: unknown; auth: AuthMode; headers?: Record<string, string> },
    schema: Schema<unknown>,
    how: { envelope?: boolean; rules?: RuleId[]; refusals?: number[] } = {},
  ): Promise<unknown> => {
    const request = `${spec.method} ${spec.path}`;
    const answer = await send(id, spec);
    const metRetry = findings.some((f) => f.operation === id && f.rule === 'retry-after');
    const rules = [...(how.rules ?? PAYLOAD_RULES), ...(metRetry || answer.status === 429 || answer.status === 503 ? (['retry-after'] as RuleId[]) : [])];
    if (answer.status >= 200 && answer.status < 300) {
      const { findings: found, payload } = checkPayload(answer, { operation: id, schema, envelope: how.envelope });
      findings.push(...found);
      record(id, request, 'checked', rules, found.length ? `${found.length} violation${found.length === 1 ? '' : 's'}` : 'as the spec says');
      return payload;
    }
    const code = errorCode(answer.body);
    if (answer.status === 401) {
      throw new CliError('auth', `${request} answered 401${code ? ` ${code}` : ''}: the credential is refused, so the contract cannot be checked`, {
        hint: 'check the key with `carrental auth status`',
      });
    }
    // a route the server does not know (404 without an error code), or one not enabled for keys yet
    if (code === 'api_key_operation_not_enabled' || (answer.status === 404 && code === undefined)) {
      record(id, request, 'not_deployed', metRetry ? ['retry-after'] : [], `HTTP ${answer.status}${code ? ` ${code}` : ''}: not deployed for keys yet`);
      return undefined;
    }
    if (how.refusals?.includes(answer.status)) {
      record(id, request, 'skipped', metRetry ? ['retry-after'] : [], `HTTP ${answer.status}${code ? ` ${code}` : ''}: refused these inputs, so there was no answer to check`);
      return undefined;
    }
    record(id, request, 'failed', metRetry ? ['retry-after'] : [], `HTTP ${answer.status}${code ? ` ${code}` : ''}`);
    return undefined;
  };

  /** An unknown uuid must be a 404. */
  const notFound = async (id: string, path: string) => {
    const request = `GET ${path}`;
    const answer = await send(`${id}:404`, { method: 'GET', path, auth: 'key' });
    const rules: RuleId[] = ['not-found'];
    if (findings.some((f) => f.operation === `${id}:404` && f.rule === 'retry-after')) rules.push('retry-after');
    if (errorCode(answer.body) === 'api_key_operation_not_enabled') {
      record(`${id}:404`, request, 'not_deployed', [], `HTTP ${answer.status} api_key_operation_not_enabled`);
      return;
    }
    if (answer.status !== 404) {
      findings.push({ operation: `${id}:404`, rule: 'not-found', spec: RULES['not-found'].spec, path: `HTTP status for a random uuid`, saw: `HTTP ${answer.status}` });
    }
    record(`${id}:404`, request, 'checked', rules, answer.status === 404 ? 'a random uuid is a 404' : `HTTP ${answer.status}`);
  };

  const skip = (id: string, request: string, why: string) => record(id, request, 'skipped', [], why);

  // ---- the catalog (anonymous)
  const from = futureLocal(opts.now, 200);
  const to = futureLocal(opts.now, 203);
  say('catalog: GET /cars, GET /cars/{alias}, POST /reservation/quote');
  let car: S.Car | undefined;
  for (const city of ['la', 'miami']) {
    const page = (await read('listCars', { method: 'GET', path: '/cars', query: { city, limit: 5, date_from: from, date_to: to }, auth: 'none' }, S.CarsPage)) as S.CarsPage | undefined;
    // the other city only when this one has no car (not when the answer is broken)
    if (!page || !Array.isArray(page.cars)) break;
    const cars = page.cars.filter((c) => typeof c?.car_alias === 'string' && c.car_alias !== '');
    car = cars.find((c) => c.is_available !== false) ?? cars[0];
    if (car) break;
  }
  if (car) {
    const alias = car.car_alias;
    await read('getCar', { method: 'GET', path: `/cars/${encodeURIComponent(alias)}`, auth: 'none' }, S.Car);
    await read('quote', { method: 'POST', path: '/reservation/quote', body: { car_alias: alias, date_checkin: from, date_checkout: to }, auth: 'none' }, S.Quote, { refusals: [400, 409] });
  } else {
    skip('getCar', 'GET /cars/{alias}', 'the car list had no car to read');
    skip('quote', 'POST /reservation/quote', 'the car list had no car to quote');
  }

  // ---- the account (a key)
  const keyed = ['getProfile', 'getVerification', 'listCards', 'listTrips', 'getReservation', 'listReservationInvoices', 'getInvoice'];
  if (!opts.hasKey) {
    for (const id of keyed) skip(id, '/my/...', 'no API key: the account is not checked');
    return finish();
  }
  say('account: profile, verification, cards, trips, a reservation, its invoices, an invoice');
  await read('getProfile', { method: 'GET', path: '/my/profile', auth: 'key' }, S.Profile);
  await read('getVerification', { method: 'GET', path: '/my/verification', auth: 'key' }, S.VerificationStatus, { rules: [...PAYLOAD_RULES, 'date-form'] });
  await read('listCards', { method: 'GET', path: '/my/billing/cards', auth: 'key' }, S.CardList);
  const trips = (await read('listTrips', { method: 'GET', path: '/my/trips', auth: 'key' }, S.TripsList)) as S.TripsList | undefined;
  // only well-formed uuids go into a path: the payload is the server's, even where it broke the schema
  const all = [...(Array.isArray(trips?.active) ? trips.active : []), ...(Array.isArray(trips?.history) ? trips.history : [])].filter((t) => typeof t?.uuid === 'string' && UUID_RE.test(t.uuid));

  const owesNothing = all.find((t) => typeof t.balance_cents === 'number' && t.balance_cents <= 0);
  if (owesNothing) {
    await read('getReservation', { method: 'GET', path: `/my/reservation/${owesNothing.uuid}`, auth: 'key' }, S.Trip, { rules: [...WITH_INVOICES, 'date-form'] });
  } else {
    skip('getReservation', 'GET /my/reservation/{uuid}', all.length ? 'every trip owes money, and reading one prepares a debt invoice: not read' : 'the customer has no trips');
  }
  let invoiceId: string | undefined;
  const withInvoices = all.find((t) => Array.isArray(t.invoices) && t.invoices.length > 0) ?? all[0];
  if (withInvoices) {
    const list = await read('listReservationInvoices', { method: 'GET', path: `/my/reservation/${withInvoices.uuid}/invoices`, auth: 'key' }, S.InvoiceList, { envelope: false, rules: WITH_INVOICES });
    const first = Array.isArray(list) ? (list as Array<{ id?: unknown }>).find((i) => typeof i?.id === 'string' && UUID_RE.test(i.id)) : undefined;
    invoiceId = first?.id as string | undefined;
  } else {
    skip('listReservationInvoices', 'GET /my/reservation/{uuid}/invoices', 'the customer has no trips');
  }
  if (invoiceId) await read('getInvoice', { method: 'GET', path: `/my/billing/invoice/${encodeURIComponent(invoiceId)}`, auth: 'key' }, S.Invoice, { rules: WITH_INVOICES });
  else skip('getInvoice', 'GET /my/billing/invoice/{uuid}', 'no invoice found to read');

  const extendable = all.find((t) => t.status === 'new' && typeof t.date_checkout === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(t.date_checkout));
  if (extendable) {
    await read(
      'extensionPrice',
      { method: 'POST', path: `/my/billing/reservation/${extendable.uuid}/extension/price`, body: { modification_type: 'extend', new_checkout_date_time_local: addDay(extendable.date_checkout!) }, auth: 'key' },
      S.ExtensionPrice,
      { refusals: [400, 409] },
    );
  } else {
    skip('extensionPrice', 'POST /my/billing/reservation/{uuid}/extension/price', 'no trip in status new to price an extension of');
  }

  say('unknown uuids: each must be a 404');
  const random = randomUUID();
  await notFound('getReservation', `/my/reservation/${random}`);
  await notFound('listReservationInvoices', `/my/reservation/${random}/invoices`);
  await notFound('getInvoice', `/my/billing/invoice/${random}`);

  if (opts.write) await writeFlow(opts.write, car);
  return finish();

  // ---- the write flow: create, read back, payment link, cancel, read back
  async function writeFlow(write: WriteFlow, found: S.Car | undefined): Promise<void> {
    if (!found) {
      problems.push('write flow: no car to reserve');
      return;
    }
    const checkin = futureLocal(opts.now, 300);
    const checkout = futureLocal(opts.now, 302);
    const body: S.ReservationCreateRequest = {
      car_alias: found.car_alias,
      date_checkin: checkin,
      date_checkout: checkout,
      options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' },
      extras: [],
    };
    say(`write flow: reserving ${found.car_alias} ${checkin} to ${checkout}, then cancelling it`);
    const met = (operation: string): Met => (status, retryAfter) => {
      const missing = checkRetryAfter({ status, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter } }, operation);
      if (missing) findings.push(missing);
    };
    const metOn = (operation: string): RuleId[] => (findings.some((f) => f.operation === operation && f.rule === 'retry-after') ? ['retry-after'] : []);
    const created = await write.create(body, met('createReservation'));
    const createdCheck = checkPayload(created, { operation: 'createReservation', schema: S.ReservationCreated });
    findings.push(...createdCheck.findings);
    record('createReservation', 'POST /my/reservation', 'checked', ['envelope', 'type', 'write-flow', ...metOn('createReservation')], `reserved ${seen(createdCheck.payload)}`);
    const uuid = typeof createdCheck.payload === 'string' && UUID_RE.test(createdCheck.payload) ? createdCheck.payload : undefined;
    if (!uuid) {
      problems.push('write flow: the create answered no reservation uuid, so nothing could be read back or cancelled; check `carrental trips`');
      return;
    }
    let cancelled = false;
    try {
      const trip = (await read('getReservation:after-create', { method: 'GET', path: `/my/reservation/${uuid}`, auth: 'key' }, S.Trip, { rules: [...WITH_INVOICES, 'write-flow'] })) as S.Trip | undefined;
      for (const [field, sent] of [['date_checkin', checkin], ['date_checkout', checkout]] as const) {
        const got = trip?.[field];
        if (trip && got !== sent) {
          findings.push({ operation: 'getReservation:after-create', rule: 'car-local-date', spec: RULES['car-local-date'].spec, path: `data.${field}`, saw: `${seen(got)} for the ${seen(sent)} reserved` });
        }
      }
      const link = (await read('paymentLink', { method: 'POST', path: `/my/reservation/${uuid}/payment-link`, body: { payment_type: 'rent' }, auth: 'key', headers: { 'x-agent-client': opts.agentClient } }, S.ManualAction, {
        rules: [...PAYLOAD_RULES, 'write-flow'],
        refusals: [409],
      })) as S.ManualAction | undefined;
      if (link && link.action !== 'pay_reservation') {
        findings.push({ operation: 'paymentLink', rule: 'write-flow', spec: 'POST /my/reservation/{uuid}/payment-link: Response 200: `{data: ManualAction}` with `action` `pay_reservation`.', path: 'data.action', saw: seen(link.action) });
      }
      if (link && typeof link.url === 'string' && !link.url.includes(uuid)) {
        findings.push({ operation: 'paymentLink', rule: 'write-flow', spec: '`pay_reservation` `url` shape: `{app_url}/trips/<reservation_uuid>?intent=pay&payment_type=<reservation or deposit>&agent_flow_id=<flow_uuid>`', path: 'data.url', saw: seen(link.url) });
      }
      const answer = await write.cancel(uuid, met('cancelReservation'));
      cancelled = true;
      const cancelCheck = checkPayload(answer, { operation: 'cancelReservation', schema: S.CancelOk });
      findings.push(...cancelCheck.findings.map((f) => (f.rule === 'closed-set' ? { ...f, rule: 'write-flow' as const, spec: RULES['write-flow'].spec } : f)));
      record('cancelReservation', `DELETE /my/reservation/${uuid}`, 'checked', ['envelope', 'type', 'write-flow', ...metOn('cancelReservation')], 'cancelled');
      const after = (await read('getReservation:after-cancel', { method: 'GET', path: `/my/reservation/${uuid}`, auth: 'key' }, S.Trip, { rules: [...WITH_INVOICES, 'write-flow'] })) as S.Trip | undefined;
      const outcome = after?.cancellation_outcome?.status;
      if (after && outcome !== 'cancelled') {
        findings.push({ operation: 'getReservation:after-cancel', rule: 'write-flow', spec: RULES['write-flow'].spec, path: 'data.cancellation_outcome.status', saw: seen(outcome) });
      }
    } finally {
      if (!cancelled) {
        try {
          await write.cancel(uuid, met('cancelReservation'));
        } catch (err) {
          const problem = `write flow: reservation ${uuid} may still be active (${err instanceof Error ? err.message : String(err)}): run the same check again to finish it, or \`carrental cancel ${uuid}\``;
          problems.push(problem);
          opts.warn?.(problem);
        }
      }
    }
  }

  function finish(): ContractReport {
    return { ok: findings.length === 0 && problems.length === 0, violations: findings.length, operations, findings, problems };
  }
}
