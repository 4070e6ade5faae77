// A server that answers every operation of the spec with a payload generated from the
// spec's tables (spec-tables.ts), in one of several shapes a conforming server may send:
// only the required members; every optional member; the nulls the spec allows; unknown
// extra members at every level; unknown values of the open lists; members in another order.
// Nothing here reads the client's schemas: it is the outsider's view of the API.
import { StubServer, type Recorded, type StubResponse } from '../helpers/stub-server.js';
import { RESOURCES, type Field, type ResourceName, type Type } from './spec-tables.js';

export const VARIANTS = ['required-only', 'every-optional', 'spec-nulls', 'extra-fields', 'open-values', 'reordered'] as const;
export type Variant = (typeof VARIANTS)[number];

export const RESERVATION_UUID = '3f6c2a0e-7b1d-4c55-9a0e-1d2b3c4d5e6f';
export const INVOICE_UUID = '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const FLOW_UUID = '0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5';
export const CAR_ALIAS = 'kia-soul-1';
/** RFC 3986 allows it; WHATWG URL parsing refuses it (numeric last label, port above 65535). */
export const ODD_URI = 'https://cdn.example.123:70000/photos/1.jpg?size=large';

const EXTRA_MEMBERS = { zz_unlisted_text: 'a member the spec does not list', zz_unlisted_object: { nested: [1, null, { deep: true }] }, zz_unlisted_null: null };

function uuidFor(name: string): string {
  if (name === 'uuid') return RESERVATION_UUID;
  if (name === 'agent_flow_id') return FLOW_UUID;
  return INVOICE_UUID;
}

function text(name: string): string {
  if (name === 'car_alias') return CAR_ALIAS;
  if (name === 'name') return 'Kia Soul';
  if (name === 'year') return '2024';
  return `${name.replace(/_/g, ' ')} text`;
}

function value(name: string, type: Type, variant: Variant): unknown {
  switch (type.kind) {
    case 'string':
      if (type.format === 'uuid') return uuidFor(name);
      if (type.format === 'local') return name === 'date_checkout' || name === 'to' ? '2027-03-04T10:00' : '2027-03-01T10:00';
      if (type.format === 'date') return '2027-03-31';
      if (type.format === 'utc') return '2027-02-20T09:30';
      if (type.format === 'uri') return ODD_URI;
      if (type.format === 'last4') return '4242';
      if (type.values) return type.open && variant === 'open-values' ? `zz-unlisted-${name}` : type.values[0];
      return text(name);
    case 'int':
      if (type.min === 1 && type.max === 12) return 7;
      if (type.min === 2000) return 2031;
      return 12_345;
    case 'bool':
      return true;
    case 'const':
      return type.value;
    case 'ref':
      return resource(type.name, variant);
    case 'array':
      return [value(name, type.of, variant)];
    case 'map': {
      const keys = variant === 'open-values' ? [...type.keys, 'zz-unlisted-plan'] : type.keys;
      const entries = keys.map((k) => [k, value(k, type.of, variant)] as const);
      // a map's members are its keys: an unlisted key is an unknown plan, not an extra field
      return Object.fromEntries(variant === 'reordered' ? entries.reverse() : entries);
    }
    case 'object':
      return object(type.fields, variant);
  }
}

function shape(obj: Record<string, unknown>, variant: Variant): Record<string, unknown> {
  if (variant === 'extra-fields') return { ...obj, ...EXTRA_MEMBERS };
  if (variant === 'reordered') return Object.fromEntries(Object.entries(obj).reverse());
  return obj;
}

function object(fields: Field[], variant: Variant): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!field.required && variant === 'required-only') continue;
    out[field.name] = field.nullable && variant === 'spec-nulls' ? null : value(field.name, field.type, variant);
  }
  return shape(out, variant);
}

export function resource(name: ResourceName, variant: Variant): Record<string, unknown> {
  return object(RESOURCES[name], variant);
}

function action(kind: string, variant: Variant) {
  const a = resource('ManualAction', variant);
  a.action = kind;
  return a;
}

function createRequestValid(text: string): boolean {
  try {
    const b = JSON.parse(text) as Record<string, unknown>;
    const o = b.options as Record<string, unknown> | undefined;
    return ['car_alias', 'date_checkin', 'date_checkout'].every((k) => typeof b[k] === 'string') && !!o && ['protection_plan', 'mileage_type', 'delivery_type'].every((k) => typeof o[k] === 'string');
  } catch {
    return false;
  }
}

/** The answer of each operation (Endpoints), for one variant; unknown ids are 404. */
export function answer(req: Recorded, variant: Variant): StubResponse {
  const envelope = (data: unknown): StubResponse => ({ json: variant === 'extra-fields' ? { data, zz_unlisted_envelope_member: { at: 'top' } } : { data } });
  const notFound: StubResponse = { status: 404, json: { error: 'not found', error_code: 'reservation_not_found', request_id: 'req-1' } };
  const { method, path } = req;
  const key = `${method} ${path}`;
  const R = RESERVATION_UUID;
  switch (key) {
    case 'GET /cars': {
      const page = resource('CarsPage', variant);
      // the spec's paging rule is followed (one page), whatever else the page holds
      page.total = (page.cars as unknown[]).length;
      page.has_more = false;
      return envelope(page);
    }
    case `GET /cars/${CAR_ALIAS}`:
      return envelope(resource('Car', variant));
    case 'POST /reservation/quote':
      return envelope(resource('Quote', variant));
    case 'GET /my/profile':
      return envelope(resource('Profile', variant));
    case 'GET /my/verification':
      return envelope(resource('VerificationStatus', variant));
    case 'GET /my/billing/cards':
      return envelope([resource('Card', variant)]);
    case 'POST /my/billing/cards/add-link':
      return envelope(action('add_payment_card', variant));
    case 'GET /my/trips':
      return envelope(resource('TripsList', variant));
    case `GET /my/reservation/${R}`:
      return envelope(resource('Trip', variant));
    case `GET /my/reservation/${R}/invoices`:
      return { json: [resource('Invoice', variant)] };
    case `GET /my/billing/invoice/${INVOICE_UUID}`:
      return envelope(resource('Invoice', variant));
    case 'POST /my/reservation':
      // ReservationCreateRequest: the QuoteRequest with options and its three members required
      return createRequestValid(req.body) ? envelope(R) : { status: 400, json: { error: 'invalid body', error_code: 'invalid_request_body' } };
    case `DELETE /my/reservation/${R}`:
      return envelope('OK');
    case `POST /my/reservation/${R}/payment-link`:
      return envelope(action('pay_reservation', variant));
    case `POST /my/billing/reservation/${R}/extension/price`:
      return envelope(resource('ExtensionPrice', variant));
    case `POST /my/reservation/${R}/extension-link`:
      return envelope(action('extend_reservation', variant));
    default:
      return notFound;
  }
}

/** A loopback server answering in `variant`; `use()` switches the variant. */
export async function startSpecServer(variant: Variant = 'every-optional') {
  const server = await StubServer.start((req) => answer(req, variant));
  return {
    server,
    baseUrl: server.baseUrl,
    use(next: Variant) {
      server.handler = (req) => answer(req, next);
    },
    close: () => server.close(),
  };
}
