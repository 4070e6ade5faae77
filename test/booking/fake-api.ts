// A small stateful fake of the booking endpoints on the scripted stub server: it keeps
// reservations and honours Idempotency-Key the way the spec says (replay, mismatch), so
// command tests can check "exactly one reservation" without the full sandbox. Faults are
// queued per operation and answered before the normal behaviour.
import { randomUUID } from 'node:crypto';
import { test as base } from 'vitest';
import { TestHome } from '../helpers/home.js';
import { StubServer, stubCar, type Recorded, type StubResponse } from '../helpers/stub-server.js';

export const ALIAS = 'tesla-model-3-la-001';
export const KEYS = { write: 'svc_write_0123456789abcdef', readOnly: 'svc_read_0123456789abcdef' };

export type Op = 'getCar' | 'listCars' | 'quote' | 'create' | 'cancel' | 'trips' | 'reservation' | 'paymentLink' | 'extensionPrice' | 'extensionLink';

export interface FakeReservation {
  uuid: string;
  alias: string;
  from: string;
  to: string;
  status: string;
  paymentStatus: Record<string, unknown>;
}

/** A fault answers instead of the fake; `after: true` runs the fake first (commit) and then answers with the fault. */
export interface Fault extends StubResponse {
  after?: boolean;
}

const QUOTE = {
  rent_subtotal: 30000,
  rent_discount_amount: 1500,
  protection_total: 3600,
  trip_fee_total: 1999,
  final_total: 34099,
  display_total: 34099,
  display_trip_total: 34099,
  display_mode: 'trip_total',
  blended_day_rate: 10000,
  discounted_day_rate: 9500,
  deposit_cents: 25000,
};

const car = (alias: string, extra: Record<string, unknown> = {}) =>
  stubCar(alias, { name: `Tesla Model 3 ${alias.slice(-3)}`, address: '1 Main St', seats: 5, ...extra });

export class FakeBookingApi {
  readonly reservations = new Map<string, FakeReservation>();
  private readonly idempotency = new Map<string, { fingerprint: string; status: number; json: unknown }>();
  private readonly faults = new Map<Op, Fault[]>();
  /** Answers for the payment status of every reservation read, in order (then the stored one). */
  readonly paymentStatuses: Array<Record<string, unknown>> = [];
  cars = [car(ALIAS, { is_available: true, display_trip_total_cents: 34099 }), car('kia-niro-la-002', { is_available: false, display_trip_total_cents: 20000 })];

  private constructor(readonly stub: StubServer) {}

  static async start(): Promise<FakeBookingApi> {
    let fake!: FakeBookingApi;
    const stub = await StubServer.start((req) => fake.handle(req));
    fake = new FakeBookingApi(stub);
    return fake;
  }

  get baseUrl() {
    return this.stub.baseUrl;
  }

  get requests(): Recorded[] {
    return this.stub.requests;
  }

  requestsOf(op: Op): Recorded[] {
    return this.stub.requests.filter((r) => opOf(r) === op);
  }

  fault(op: Op, ...faults: Fault[]): void {
    this.faults.set(op, [...(this.faults.get(op) ?? []), ...faults]);
  }

  /** Forgets what earlier tests sent and booked, and the payment statuses they left queued. */
  forget(): void {
    this.requests.length = 0;
    this.reservations.clear();
    this.paymentStatuses.length = 0;
  }

  close() {
    return this.stub.close();
  }

  /** A reservation created directly, as if booked earlier. */
  seed(status = 'new'): FakeReservation {
    const r: FakeReservation = { uuid: randomUUID(), alias: ALIAS, from: '2026-12-01T10:00', to: '2026-12-04T10:00', status, paymentStatus: { type: 'to_pay', amount: 34099 } };
    this.reservations.set(r.uuid, r);
    return r;
  }

  trip(r: FakeReservation): Record<string, unknown> {
    const cancelled = r.status === 'cancelled';
    return {
      uuid: r.uuid,
      status: r.status,
      date_checkin: r.from,
      date_checkout: r.to,
      days: 3,
      balance_cents: 34099,
      car: car(r.alias),
      financial_summary: { currency: 'USD', trip_total_cents: 34099, deposit_cents: 25000 },
      payment_status: this.paymentStatuses.shift() ?? r.paymentStatus,
      invoices: [],
      cancellation_outcome: cancelled
        ? { status: 'cancelled', hold_release: { status: 'not_required' }, refund_review: { status: 'pending' }, refunds: [] }
        : { status: 'not_cancelled' },
      server_extra_field: 'kept',
    };
  }

  private async handle(req: Recorded): Promise<StubResponse> {
    const op = opOf(req);
    if (!op) return { status: 404, json: { error: 'Not found', error_code: 'not_found' } };
    const fault = this.faults.get(op)?.shift();
    if (fault && !fault.after) return fault;
    const answer = this.answer(op, req);
    return fault ? fault : answer;
  }

  private auth(req: Recorded): 'write' | 'read' | undefined {
    const header = req.headers.authorization ?? '';
    if (header === `Bearer ${KEYS.write}`) return 'write';
    if (header === `Bearer ${KEYS.readOnly}`) return 'read';
    return undefined;
  }

  private answer(op: Op, req: Recorded): StubResponse {
    const err = (status: number, error_code: string, error: string, headers?: Record<string, string>): StubResponse => ({
      status,
      headers,
      json: { error, error_code, request_id: `req-${this.requests.length}`, description: error },
    });
    if (op === 'getCar') {
      const alias = decodeURIComponent(req.path.split('/')[2]);
      const found = this.cars.find((c) => c.car_alias === alias);
      return found ? { json: { data: found } } : err(404, 'car_not_found', 'Car not found');
    }
    if (op === 'listCars') return { json: { data: { cars: this.cars, total: this.cars.length, has_more: false } } };
    if (op === 'quote') return { json: { data: QUOTE } };
    const who = this.auth(req);
    if (!who) return err(401, 'invalid_credentials', 'Invalid credentials');
    const uuid = req.path.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i)?.[0];
    const reservation = uuid ? this.reservations.get(uuid) : undefined;

    if (op === 'create' || op === 'cancel') {
      if (who === 'read') {
        return err(403, 'api_key_write_upgrade_required', 'This API key is read-only; create a booking_write key at https://app.example.test/settings/api-keys.');
      }
      const key = String(req.headers['idempotency-key'] ?? '');
      if (!key) return err(400, 'idempotency_key_required', 'Idempotency-Key header required');
      const fingerprint = `${req.method} ${req.path} ${req.body}`;
      const done = this.idempotency.get(key);
      if (done) {
        if (done.fingerprint !== fingerprint) return err(409, 'idempotency_mismatch', 'Idempotency key reused for a different request');
        return { status: done.status, json: done.json };
      }
      let result: { status: number; json: unknown };
      if (op === 'create') {
        const body = JSON.parse(req.body) as { car_alias: string; date_checkin: string; date_checkout: string };
        const taken = [...this.reservations.values()].some((r) => r.alias === body.car_alias && r.status === 'new' && r.from < body.date_checkout && body.date_checkin < r.to);
        if (taken) {
          const e = err(409, 'car_not_available', 'Car not available for these dates');
          result = { status: 409, json: e.json };
        } else {
          const r: FakeReservation = { uuid: randomUUID(), alias: body.car_alias, from: body.date_checkin, to: body.date_checkout, status: 'new', paymentStatus: { type: 'to_pay', amount: 34099 } };
          this.reservations.set(r.uuid, r);
          result = { status: 200, json: { data: r.uuid } };
        }
      } else if (!reservation) {
        return err(404, 'reservation_not_found', 'Reservation not found');
      } else if (reservation.status !== 'new') {
        result = { status: 400, json: err(400, 'reservation_not_cancellable', 'Reservation cannot be cancelled').json };
      } else {
        reservation.status = 'cancelled';
        result = { status: 200, json: { data: 'OK' } };
      }
      this.idempotency.set(key, { fingerprint, ...result });
      return result;
    }
    if (op === 'trips') {
      const all = [...this.reservations.values()].map((r) => this.trip(r));
      return { json: { data: { active: all.filter((t) => t.status === 'new'), history: all.filter((t) => t.status !== 'new') } } };
    }
    if (!reservation) return err(404, 'reservation_not_found', 'Reservation not found');
    if (op === 'reservation') return { json: { data: this.trip(reservation) } };
    const flow = randomUUID();
    if (op === 'paymentLink') {
      if (reservation.status === 'cancelled') return err(409, 'reservation_cancelled', 'Reservation is cancelled');
      if (reservation.paymentStatus.type === 'settled') return err(409, 'nothing_to_pay', 'Nothing to pay');
      const type = (JSON.parse(req.body) as { payment_type: string }).payment_type;
      return {
        json: {
          data: {
            action: 'pay_reservation',
            status: 'requires_user_action',
            url: `https://app.example.test/trips/${reservation.uuid}?intent=pay&payment_type=${type === 'rent' ? 'reservation' : 'deposit'}&agent_flow_id=${flow}`,
            agent_flow_id: flow,
          },
        },
      };
    }
    if (reservation.status !== 'new') return err(400, 'reservation_not_active', 'Reservation is not active');
    if (op === 'extensionPrice') {
      const body = JSON.parse(req.body) as { new_checkout_date_time_local: string };
      if (body.new_checkout_date_time_local <= reservation.to) return err(400, 'invalid_checkout', 'Invalid checkout');
      return { json: { data: { additional_days: 2, total_amount: 21000, currency: 'USD' } } };
    }
    const body = req.body ? (JSON.parse(req.body) as { checkout?: string }) : {};
    if (body.checkout !== undefined && body.checkout <= reservation.to) return err(400, 'invalid_checkout', 'Invalid checkout');
    const query = body.checkout ? `?checkout=${encodeURIComponent(body.checkout)}&agent_flow_id=${flow}` : `?agent_flow_id=${flow}`;
    return {
      json: {
        data: { action: 'extend_reservation', status: 'requires_user_action', url: `https://app.example.test/trips/${reservation.uuid}/modify${query}`, agent_flow_id: flow },
      },
    };
  }
}

export function opOf(req: Recorded): Op | undefined {
  const p = req.path;
  if (req.method === 'GET' && p === '/cars') return 'listCars';
  if (req.method === 'GET' && /^\/cars\/[^/]+$/.test(p)) return 'getCar';
  if (req.method === 'POST' && p === '/reservation/quote') return 'quote';
  if (req.method === 'POST' && p === '/my/reservation') return 'create';
  if (req.method === 'DELETE' && /^\/my\/reservation\/[^/]+$/.test(p)) return 'cancel';
  if (req.method === 'GET' && p === '/my/trips') return 'trips';
  if (req.method === 'GET' && /^\/my\/reservation\/[^/]+$/.test(p)) return 'reservation';
  if (req.method === 'POST' && /^\/my\/reservation\/[^/]+\/payment-link$/.test(p)) return 'paymentLink';
  if (req.method === 'POST' && /^\/my\/billing\/reservation\/[^/]+\/extension\/price$/.test(p)) return 'extensionPrice';
  if (req.method === 'POST' && /^\/my\/reservation\/[^/]+\/extension-link$/.test(p)) return 'extensionLink';
  return undefined;
}

/**
 * The fixtures of the tests against the fake: one per file, which forgets everything before
 * each test, and a fresh temporary home per test (removed after it). Each file adds its own
 * `cli` (`test.extend('cli', ...)`): the keys, retries and sleeps differ from file to file.
 */
export const test = base
  .extend('fake', { scope: 'file' }, async ({}, { onCleanup }) => {
    const fake = await FakeBookingApi.start();
    onCleanup(() => fake.close());
    return fake;
  })
  .extend('home', { auto: true }, async ({ fake }, { onCleanup }) => {
    fake.forget();
    const home = new TestHome();
    onCleanup(() => home.cleanup());
    return home;
  });

/**
 * The commands' clock in tests against the fake: its dates (2026-12-01) stay in the
 * future whatever day the suite runs (a past check-in is refused before any request).
 */
export const FAKE_NOW = () => new Date('2026-11-20T18:00:00Z');
