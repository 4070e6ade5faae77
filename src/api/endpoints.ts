// One thin function per operation of the spec. Each names its operation by id (its method
// and path come from operations.ts, where routes are declared once); the auth class,
// envelope and schema live here; HTTP behaviour lives in the client.
import type { ApiClient, RequestSpec, RetryPolicy } from './client.js';
import { OPERATIONS, type Operation } from './operations.js';
import { pathSegment } from './path.js';
import * as S from './schemas.js';

export interface CarsQuery {
  city?: string;
  date_from?: string;
  date_to?: string;
  limit?: number;
  offset?: number;
  body_type?: string;
  make_id?: number;
  model_id?: number;
  order_by?: string;
}

type Extra = Pick<RequestSpec<unknown>, 'retry' | 'onRetry' | 'headers'>;

/** The method and path of an operation, its `{param}` placeholders filled as escaped single segments. */
export function route(id: string, params: Record<string, string> = {}): Pick<Operation, 'method' | 'path'> {
  const op = OPERATIONS.find((o) => o.id === id);
  if (!op) throw new Error(`no operation ${id}`);
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`${id} needs ${name}`);
    return pathSegment(params[name]);
  });
  return { method: op.method, path };
}

export class Api {
  constructor(
    readonly client: ApiClient,
    readonly agentClient: string,
  ) {}

  listCars(query: CarsQuery, extra: Extra = {}) {
    return this.client.request({ ...route('listCars'), query: { ...query }, auth: 'none', schema: S.CarsPage, ...extra });
  }

  getCar(alias: string, extra: Extra = {}) {
    return this.client.request({ ...route('getCar', { alias }), auth: 'none', schema: S.Car, ...extra });
  }

  /** Anonymous unless `withKey`: then the configured key is sent (and must be valid). */
  quote(body: S.QuoteRequest, withKey: boolean) {
    return this.client.request({ ...route('quote'), body, auth: withKey ? 'key' : 'none', schema: S.Quote });
  }

  profile() {
    return this.client.request({ ...route('getProfile'), auth: 'key', schema: S.Profile });
  }

  verification() {
    return this.client.request({ ...route('getVerification'), auth: 'key', schema: S.VerificationStatus });
  }

  cards() {
    return this.client.request({ ...route('listCards'), auth: 'key', schema: S.CardList });
  }

  cardAddLink() {
    return this.client.request({ ...route('cardAddLink'), auth: 'key', schema: S.ManualAction, headers: this.agentHeader() });
  }

  trips() {
    return this.client.request({ ...route('listTrips'), auth: 'key', schema: S.TripsList });
  }

  reservation(uuid: string, extra: Extra = {}) {
    return this.client.request({ ...route('getReservation', { uuid }), auth: 'key', schema: S.Trip, ...extra });
  }

  reservationInvoices(uuid: string) {
    return this.client.request({ ...route('listReservationInvoices', { uuid }), auth: 'key', schema: S.InvoiceList, envelope: false });
  }

  invoice(uuid: string) {
    return this.client.request({ ...route('getInvoice', { uuid }), auth: 'key', schema: S.Invoice });
  }

  createReservation(body: S.ReservationCreateRequest, idempotencyKey: string, retry: RetryPolicy, extra: Extra = {}) {
    return this.client.request({
      ...route('createReservation'),
      body,
      auth: 'key',
      schema: S.ReservationCreated,
      retry,
      ...extra,
      headers: { ...(extra.headers ?? {}), 'idempotency-key': idempotencyKey },
    });
  }

  cancelReservation(uuid: string, idempotencyKey: string, retry: RetryPolicy, extra: Extra = {}) {
    return this.client.request({
      ...route('cancelReservation', { uuid }),
      auth: 'key',
      schema: S.CancelOk,
      retry,
      ...extra,
      headers: { ...(extra.headers ?? {}), 'idempotency-key': idempotencyKey },
    });
  }

  paymentLink(uuid: string, paymentType: 'rent' | 'deposit') {
    return this.client.request({
      ...route('paymentLink', { uuid }),
      body: { payment_type: paymentType },
      auth: 'key',
      schema: S.ManualAction,
      headers: this.agentHeader(),
    });
  }

  extensionPrice(uuid: string, newCheckout: string) {
    return this.client.request({
      ...route('extensionPrice', { uuid }),
      body: { modification_type: 'extend', new_checkout_date_time_local: newCheckout },
      auth: 'key',
      schema: S.ExtensionPrice,
    });
  }

  /** The body field is `checkout`, the name the machine-readable description gives. */
  extensionLink(uuid: string, checkout?: string) {
    return this.client.request({
      ...route('extensionLink', { uuid }),
      body: checkout ? { checkout } : {},
      auth: 'key',
      schema: S.ManualAction,
      headers: this.agentHeader(),
    });
  }

  private agentHeader() {
    return { 'x-agent-client': this.agentClient };
  }
}
