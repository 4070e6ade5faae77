// One thin function per operation of the spec. Paths, auth class, envelope and schema
// live here; HTTP behaviour lives in the client.
import type { ApiClient, RequestSpec, RetryPolicy } from './client.js';
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

const seg = (value: string) => pathSegment(value);

export class Api {
  constructor(
    readonly client: ApiClient,
    readonly agentClient: string,
  ) {}

  listCars(query: CarsQuery, extra: Extra = {}) {
    return this.client.request({ method: 'GET', path: '/cars', query: { ...query }, auth: 'none', schema: S.CarsPage, ...extra });
  }

  getCar(alias: string, extra: Extra = {}) {
    return this.client.request({ method: 'GET', path: `/cars/${seg(alias)}`, auth: 'none', schema: S.Car, ...extra });
  }

  /** Anonymous unless `withKey`: then the configured key is sent (and must be valid). */
  quote(body: S.QuoteRequest, withKey: boolean) {
    return this.client.request({ method: 'POST', path: '/reservation/quote', body, auth: withKey ? 'key' : 'none', schema: S.Quote });
  }

  profile() {
    return this.client.request({ method: 'GET', path: '/my/profile', auth: 'key', schema: S.Profile });
  }

  verification() {
    return this.client.request({ method: 'GET', path: '/my/verification', auth: 'key', schema: S.VerificationStatus });
  }

  cards() {
    return this.client.request({ method: 'GET', path: '/my/billing/cards', auth: 'key', schema: S.CardList });
  }

  cardAddLink() {
    return this.client.request({ method: 'POST', path: '/my/billing/cards/add-link', auth: 'key', schema: S.ManualAction, headers: this.agentHeader() });
  }

  trips() {
    return this.client.request({ method: 'GET', path: '/my/trips', auth: 'key', schema: S.TripsList });
  }

  reservation(uuid: string, extra: Extra = {}) {
    return this.client.request({ method: 'GET', path: `/my/reservation/${seg(uuid)}`, auth: 'key', schema: S.Trip, ...extra });
  }

  reservationInvoices(uuid: string) {
    return this.client.request({ method: 'GET', path: `/my/reservation/${seg(uuid)}/invoices`, auth: 'key', schema: S.InvoiceList, envelope: false });
  }

  invoice(uuid: string) {
    return this.client.request({ method: 'GET', path: `/my/billing/invoice/${seg(uuid)}`, auth: 'key', schema: S.Invoice });
  }

  createReservation(body: S.ReservationCreateRequest, idempotencyKey: string, retry: RetryPolicy, extra: Extra = {}) {
    return this.client.request({
      method: 'POST',
      path: '/my/reservation',
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
      method: 'DELETE',
      path: `/my/reservation/${seg(uuid)}`,
      auth: 'key',
      schema: S.CancelOk,
      retry,
      ...extra,
      headers: { ...(extra.headers ?? {}), 'idempotency-key': idempotencyKey },
    });
  }

  paymentLink(uuid: string, paymentType: 'rent' | 'deposit') {
    return this.client.request({
      method: 'POST',
      path: `/my/reservation/${seg(uuid)}/payment-link`,
      body: { payment_type: paymentType },
      auth: 'key',
      schema: S.ManualAction,
      headers: this.agentHeader(),
    });
  }

  extensionPrice(uuid: string, newCheckout: string) {
    return this.client.request({
      method: 'POST',
      path: `/my/billing/reservation/${seg(uuid)}/extension/price`,
      body: { modification_type: 'extend', new_checkout_date_time_local: newCheckout },
      auth: 'key',
      schema: S.ExtensionPrice,
    });
  }

  /** The body field is `checkout`, the name the machine-readable description gives. */
  extensionLink(uuid: string, checkout?: string) {
    return this.client.request({
      method: 'POST',
      path: `/my/reservation/${seg(uuid)}/extension-link`,
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
