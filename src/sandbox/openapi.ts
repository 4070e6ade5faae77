// The OpenAPI 3.1 description of the API, generated from what the code itself uses: the
// zod schemas of src/api/schemas.ts (the client validates every response with them, the
// sandbox answers to them) and the operations table of src/api/operations.ts (the
// sandbox routes with it). Nothing here restates a field, so the document cannot drift from
// the code. Served at GET /v1/openapi.json and printed by `carrental sandbox openapi`.
import { type $ZodType, registry, toJSONSchema } from 'zod/v4/core';
import { API_VERSION, OPERATIONS, type Operation } from '../api/operations.js';
import * as S from '../api/schemas.js';
import { BODY_TYPES, CITIES, ORDER_BY } from '../api/schemas.js';
import { type ErrorCode, apiError } from './errors.js';
import { type Reply, errorReply, jsonReply } from './http.js';

type Json = Record<string, unknown>;

/** Response schemas, as the server sends them (zod's output side). */
const RESPONSE_SCHEMAS = {
  Uuid: S.ReservationCreated,
  LocalDateTime: S.LocalDateTime,
  LocalDate: S.LocalDate,
  CarPrices: S.CarPrices,
  BlockedRange: S.BlockedRange,
  Car: S.Car,
  CarsPage: S.CarsPage,
  Quote: S.Quote,
  FinancialSummary: S.FinancialSummary,
  PaymentStatus: S.PaymentStatus,
  InvoiceItem: S.InvoiceItem,
  Invoice: S.Invoice,
  Refund: S.Refund,
  CancellationOutcome: S.CancellationOutcome,
  Trip: S.Trip,
  TripsList: S.TripsList,
  ManualAction: S.ManualAction,
  Card: S.Card,
  CardList: S.CardList,
  VerificationStatus: S.VerificationStatus,
  Profile: S.Profile,
  ExtensionPrice: S.ExtensionPrice,
  CancelOk: S.CancelOk,
  Error: S.ApiErrorBody,
} satisfies Record<string, $ZodType>;

/** Request bodies, as the server accepts them (zod's input side: unknown keys are not refused). */
const REQUEST_SCHEMAS = {
  LocalDateTime: S.LocalDateTime,
  ReservationOptions: S.ReservationOptions,
  QuoteRequest: S.QuoteRequest,
  ReservationCreateRequest: S.ReservationCreateRequest,
  PaymentLinkRequest: S.PaymentLinkRequest,
  ExtensionPriceRequest: S.ExtensionPriceRequest,
  ExtensionLinkRequest: S.ExtensionLinkRequest,
} satisfies Record<string, $ZodType>;

const SCHEMA_REF = '#/components/schemas/';
const ref = (name: keyof typeof RESPONSE_SCHEMAS | keyof typeof REQUEST_SCHEMAS) => ({ $ref: `${SCHEMA_REF}${name}` });

/** JSON Schema patterns have no flags: a case-insensitive regex spells both cases out. */
export function caseInsensitivePattern(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      out += c + (source[i + 1] ?? '');
      i++;
    } else if (c === '[' && !inClass) {
      inClass = true;
      out += c;
    } else if (c === ']' && inClass) {
      inClass = false;
      out += c;
    } else if (inClass && /[a-z]/i.test(c) && source[i + 1] === '-' && /[a-z]/i.test(source[i + 2] ?? '')) {
      const range = source.slice(i, i + 3);
      out += `${range.toLowerCase()}${range.toUpperCase()}`;
      i += 2;
    } else if (/[a-z]/i.test(c)) {
      out += inClass ? `${c.toLowerCase()}${c.toUpperCase()}` : `[${c.toLowerCase()}${c.toUpperCase()}]`;
    } else {
      out += c;
    }
  }
  return out;
}

interface OverrideContext {
  zodSchema: { _zod: { def: { type?: string; checks?: { _zod: { def: { format?: string; pattern?: RegExp } } }[] } } };
  jsonSchema: Json;
}

function override(ctx: OverrideContext): void {
  const js = ctx.jsonSchema;
  // z.number().int() bounds itself to safe integers: true, but noise in a description.
  if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
  if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
  for (const check of ctx.zodSchema._zod.def.checks ?? []) {
    const { format, pattern } = check._zod.def;
    if (format === 'regex' && pattern?.flags.includes('i') && js.pattern === pattern.source) js.pattern = caseInsensitivePattern(pattern.source);
  }
}

function convert(schemas: Record<string, $ZodType>, io: 'input' | 'output'): Record<string, Json> {
  const ids = registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) ids.add(schema, { id });
  const out = toJSONSchema(ids, {
    target: 'draft-2020-12',
    io,
    uri: (id) => `${SCHEMA_REF}${id}`,
    override: override as unknown as (ctx: unknown) => void,
  }) as { schemas: Record<string, Json> };
  for (const schema of Object.values(out.schemas)) {
    // The document names its dialect once (jsonSchemaDialect); ids would be relative to nothing.
    delete schema.$schema;
    delete schema.$id;
  }
  return out.schemas;
}

/** The sandbox refuses a body field it does not define (400 invalid_request): request objects are closed. */
function closeObjects(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(closeObjects);
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Json;
  if (s.type === 'object' && s.properties) s.additionalProperties = false;
  for (const [k, v] of Object.entries(s)) if (k !== 'additionalProperties') closeObjects(v);
}

/** Both sides in one `components.schemas`; a name on both sides must mean the same schema. */
function componentSchemas(): Record<string, Json> {
  const responses = convert(RESPONSE_SCHEMAS, 'output');
  const requests = convert(REQUEST_SCHEMAS, 'input');
  closeObjects(requests);
  // The prose's name for the target is accepted too (when both are sent they must agree).
  (requests.ExtensionLinkRequest.properties as Json).date_checkout = { ...ref('LocalDateTime'), description: 'The same target under the name the prose uses' };
  for (const [name, schema] of Object.entries(requests)) {
    if (name in responses && JSON.stringify(responses[name]) !== JSON.stringify(schema)) {
      throw new Error(`openapi: schema ${name} differs between requests and responses`);
    }
  }
  // The defaults the spec states for unset quote options.
  const optionProps = requests.ReservationOptions.properties as Record<string, Json>;
  optionProps.protection_plan.default = 'minimum';
  optionProps.mileage_type.default = 'limited';
  optionProps.delivery_type.default = 'pickup';
  const all = { ...responses, ...requests };
  all.Error.description = 'The error body of every non-2xx answer. `error_code` is the stable machine-readable code; codes beyond those listed on an operation may appear.';
  all.ManualAction.description = 'A link to a customer web page: `url` contains no key, token or payment secret and authorizes nothing; the caller reads the account or reservation again to learn the outcome.';
  all.ExtensionLinkRequest.description = 'The target checkout is named `checkout` in the machine-readable description and `date_checkout` in the prose; the sandbox accepts either (both must then agree).';
  return all;
}

// ---------------------------------------------------------------- operations

type Status = 400 | 401 | 403 | 404 | 409 | 429 | 500 | 503;

/** What the trip of a quote or a create can be refused for: the spec's codes and the sandbox's own (docs/sandbox.md). */
const TRIP_REQUEST_ERRORS: ErrorCode[] = [
  'invalid_request_body',
  'invalid_request',
  'invalid_date_format',
  'invalid_date_range',
  'date_in_past',
  'outside_operating_hours',
  'trip_too_short',
  'trip_too_long',
  'invalid_protection_plan',
  'invalid_options',
  'delivery_address_required',
  'invalid_extra',
  'promo_codes_disabled',
  'promo_code_not_found',
  'promo_code_invalid',
  'promo_already_used',
];

/** The errors the spec names for each operation, by status (Endpoints and Errors). */
const OPERATION_ERRORS: Record<string, Partial<Record<Status, ErrorCode[]>>> = {
  // invalid_query_parameter: a city, body_type or order_by outside its enum, or a parameter given twice
  listCars: { 400: ['invalid_pagination', 'date_range_incomplete', 'invalid_date_format', 'invalid_date_range', 'invalid_query_parameter', 'credentials_not_accepted'], 429: [] },
  getCar: { 400: ['credentials_not_accepted'], 404: ['car_not_found'], 429: [] },
  quote: {
    400: TRIP_REQUEST_ERRORS,
    401: [],
    404: ['car_not_found'],
    409: ['car_not_available'],
    429: [],
    503: [],
  },
  getProfile: { 401: [], 403: [], 429: [], 503: [] },
  getVerification: { 401: [], 403: [], 429: [] },
  listCards: { 401: [], 403: [], 429: [] },
  cardAddLink: { 401: [], 403: ['card_payments_not_enabled'], 429: [], 503: ['manual_action_unavailable'] },
  listTrips: { 401: [], 403: [], 429: [] },
  getReservation: { 401: [], 403: [], 404: ['reservation_not_found'], 429: [], 500: ['payment_in_progress'] },
  listReservationInvoices: { 401: [], 403: [], 404: ['reservation_not_found'], 429: [] },
  getInvoice: { 401: [], 403: [], 404: ['invoice_not_found'], 429: [] },
  createReservation: {
    // a create checks the trip as a quote does (rules.ts, readTripRequest and priceTrip)
    400: [...TRIP_REQUEST_ERRORS, 'idempotency_key_required', 'idempotency_key_invalid'],
    401: [],
    403: ['api_key_write_upgrade_required'],
    409: ['idempotency_mismatch', 'operation_in_progress', 'active_reservation_exists', 'car_not_available', 'driver_not_approved'],
    429: [],
    503: ['operation_outcome_unknown'],
  },
  cancelReservation: {
    400: ['reservation_not_cancellable', 'idempotency_key_required', 'idempotency_key_invalid'],
    401: [],
    403: ['api_key_write_upgrade_required'],
    404: ['reservation_not_found'],
    409: ['idempotency_mismatch', 'operation_in_progress'],
    429: [],
    503: ['operation_outcome_unknown'],
  },
  paymentLink: {
    400: ['invalid_payment_type', 'invalid_request_body', 'invalid_request', 'invalid_reservation_id'],
    401: [],
    403: [],
    404: ['reservation_not_found'],
    409: ['nothing_to_pay', 'reservation_cancelled'],
    429: [],
    503: ['manual_action_unavailable'],
  },
  extensionPrice: { 400: ['invalid_checkout', 'reservation_not_active', 'invalid_request_body', 'invalid_request', 'invalid_reservation_id'], 401: [], 403: [], 404: ['reservation_not_found'], 429: [] },
  extensionLink: {
    400: ['reservation_not_active', 'invalid_checkout', 'invalid_request_body', 'invalid_request', 'invalid_reservation_id'],
    401: [],
    403: [],
    404: ['reservation_not_found'],
    429: [],
    503: ['manual_action_unavailable'],
  },
};

/** Codes every operation of an auth class can answer with, by status. */
function commonErrors(op: Operation, status: Status): ErrorCode[] {
  const key = op.auth !== 'none';
  switch (status) {
    case 401:
      return key ? ['invalid_credentials', 'conflicting_credentials'] : [];
    case 403:
      return key ? ['api_key_operation_not_enabled'] : [];
    case 429:
      return ['rate_limited'];
    case 503:
      return key ? ['authentication_unavailable', 'rate_limit_unavailable'] : [];
    default:
      return [];
  }
}

const STATUS_TEXT: Record<Status, string> = {
  400: 'Invalid request',
  401: 'Missing, invalid or conflicting credentials',
  403: 'The credential may not do this',
  404: 'Not found (also for another customer’s resource)',
  409: 'Conflict or refused by a booking rule',
  429: 'Rate budget exhausted; wait Retry-After seconds',
  500: 'Temporary: a payment is in progress; read again in a few seconds',
  503: 'Unavailable or outcome unknown; wait Retry-After seconds',
};

const TAGS: Record<string, string> = {
  listCars: 'catalog',
  getCar: 'catalog',
  quote: 'catalog',
  createReservation: 'reservations',
  cancelReservation: 'reservations',
  cardAddLink: 'customer actions',
  paymentLink: 'customer actions',
  extensionPrice: 'customer actions',
  extensionLink: 'customer actions',
};

const envelope = (data: Json) => ({ type: 'object', required: ['data'], properties: { data } });

/** The 200 body of each operation: `{data: ...}`, except the bare invoice array. */
const SUCCESS: Record<string, { schema: Json; description: string }> = {
  listCars: { schema: envelope(ref('CarsPage')), description: 'A page of cars; page with offset until has_more is false' },
  getCar: { schema: envelope(ref('Car')), description: 'The car, with its blocked ranges (car-local)' },
  quote: { schema: envelope(ref('Quote')), description: 'The price quote in integer cents; the deposit is in no total' },
  getProfile: { schema: envelope(ref('Profile')), description: 'The customer who owns the credential' },
  getVerification: { schema: envelope(ref('VerificationStatus')), description: 'Identity verification and driver’s licence status' },
  listCards: { schema: envelope(ref('CardList')), description: 'Zero or one saved card (the one a charge would use)' },
  cardAddLink: { schema: envelope(ref('ManualAction')), description: 'A link to add a card, or to review and replace the saved one' },
  listTrips: { schema: envelope(ref('TripsList')), description: 'Active and past trips, each with its financial summary' },
  getReservation: { schema: envelope(ref('Trip')), description: 'The reservation with payment status, invoices and cancellation outcome' },
  listReservationInvoices: { schema: { type: 'array', items: ref('Invoice') }, description: 'Every invoice of the trip: a bare array, no envelope' },
  getInvoice: { schema: envelope(ref('Invoice')), description: 'One invoice' },
  createReservation: { schema: envelope(ref('Uuid')), description: 'The uuid of the new unpaid reservation' },
  cancelReservation: { schema: envelope(ref('CancelOk')), description: 'The cancellation committed; read cancellation_outcome for hold and refund state' },
  paymentLink: { schema: envelope(ref('ManualAction')), description: 'A link to pay rent or the deposit; nothing is paid yet' },
  extensionPrice: { schema: envelope(ref('ExtensionPrice')), description: 'The price preview in integer cents; nothing changes' },
  extensionLink: { schema: envelope(ref('ManualAction')), description: 'A link to confirm the extension; the dates do not change yet' },
};

const REQUEST_BODIES: Record<string, { schema: Json; required: boolean; description: string }> = {
  quote: { schema: ref('QuoteRequest'), required: true, description: 'Unset options default to minimum, limited, pickup' },
  createReservation: { schema: ref('ReservationCreateRequest'), required: true, description: 'The quote request with all three options required' },
  paymentLink: { schema: ref('PaymentLinkRequest'), required: true, description: 'Which payment: rent or deposit' },
  extensionPrice: { schema: ref('ExtensionPriceRequest'), required: true, description: 'The proposed new checkout, car-local' },
  extensionLink: { schema: ref('ExtensionLinkRequest'), required: false, description: 'Optional initial target checkout for the page, car-local' },
};

const PRINTABLE_ASCII = (min: number, max: number) => `^[\\x20-\\x7E]{${min},${max}}$`;

const PARAMETERS: Record<string, Json> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    description: '16 to 128 printable ASCII characters: a fresh UUID v4 per new command, reused unchanged for its retries. A retry of a completed command returns the original status and body.',
    schema: { type: 'string', minLength: 16, maxLength: 128, pattern: PRINTABLE_ASCII(16, 128) },
  },
  XAgentClient: {
    name: 'X-Agent-Client',
    in: 'header',
    required: false,
    description: 'Self-reported client name, recorded as unverified; kept only if 1 to 64 printable ASCII characters, otherwise ignored (never refused). Never changes authorization or results.',
    // No minLength, maxLength or pattern: an invalid value is ignored, never refused, and a
    // validating client or proxy must not reject what the server accepts.
    schema: { type: 'string' },
  },
  CarAlias: { name: 'alias', in: 'path', required: true, description: 'The car_alias', schema: { type: 'string' } },
  ReservationUuid: { name: 'uuid', in: 'path', required: true, description: 'Reservation uuid', schema: ref('Uuid') },
  InvoiceUuid: { name: 'uuid', in: 'path', required: true, description: 'Invoice uuid', schema: ref('Uuid') },
};

const LIST_CARS_QUERY: Json[] = [
  { name: 'city', in: 'query', schema: { type: 'string', enum: [...CITIES] } },
  { name: 'date_from', in: 'query', description: 'Car-local; sent together with date_to', schema: ref('LocalDateTime') },
  { name: 'date_to', in: 'query', description: 'Car-local; after date_from', schema: ref('LocalDateTime') },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'body_type', in: 'query', schema: { type: 'string', enum: [...BODY_TYPES] } },
  { name: 'make_id', in: 'query', schema: { type: 'integer', minimum: 0 } },
  { name: 'model_id', in: 'query', schema: { type: 'integer', minimum: 0 } },
  { name: 'order_by', in: 'query', description: 'With dates the searched trip total is ordered, without them the day rate (a sandbox choice)', schema: { type: 'string', enum: [...ORDER_BY] } },
];

const paramRef = (name: keyof typeof PARAMETERS) => ({ $ref: `#/components/parameters/${name}` });

function parametersOf(op: Operation): Json[] {
  const out: Json[] = [];
  if (op.path.includes('{alias}')) out.push(paramRef('CarAlias'));
  if (op.path.includes('{uuid}')) out.push(paramRef(op.id === 'getInvoice' ? 'InvoiceUuid' : 'ReservationUuid'));
  if (op.id === 'listCars') out.push(...LIST_CARS_QUERY);
  if (op.idempotent) out.push(paramRef('IdempotencyKey'));
  if (op.agentClient) out.push(paramRef('XAgentClient'));
  return out;
}

function securityOf(op: Operation): Json[] {
  const key = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
  if (op.auth === 'none') return [];
  // An empty requirement makes the credential optional; a bad one is still a 401.
  if (op.auth === 'optional') return [{}, ...key];
  return key;
}

/** Always sent with 429 and 503; with a 409 only for operation_in_progress. */
const retryAfterHeader = (always: boolean): Json =>
  always
    ? { $ref: '#/components/headers/RetryAfter' }
    : { description: 'Sent with operation_in_progress: seconds to wait before retrying with the same Idempotency-Key', schema: { type: 'integer', minimum: 1 } };

function responsesOf(op: Operation): Json {
  const success = SUCCESS[op.id];
  if (!success) throw new Error(`openapi: no success response for ${op.id}`);
  const ok: Json = { description: success.description, content: { 'application/json': { schema: success.schema } } };
  if (op.idempotent) ok.headers = { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } };
  const responses: Json = { 200: ok };
  const named = OPERATION_ERRORS[op.id] ?? {};
  // Only the statuses the spec lists for the operation (unknown query parameters are ignored, so a read has no 400 of its own).
  const statuses = Object.keys(named).map(Number).sort() as Status[];
  for (const status of statuses) {
    const codes = [...new Set([...(named[status] ?? []), ...commonErrors(op, status)])];
    const response: Json = {
      description: codes.length ? `${STATUS_TEXT[status]}: ${codes.join(', ')}` : STATUS_TEXT[status],
      content: { 'application/json': { schema: ref('Error') } },
      'x-error-codes': codes,
    };
    if (status === 429 || status === 503 || (status === 409 && codes.includes('operation_in_progress'))) {
      response.headers = { 'Retry-After': retryAfterHeader(status !== 409) };
    }
    responses[status] = response;
  }
  responses.default = { description: 'Any other error, in the same error body', content: { 'application/json': { schema: ref('Error') } } };
  return responses;
}

function operationObject(op: Operation): Json {
  const body = REQUEST_BODIES[op.id];
  const o: Json = {
    operationId: op.id,
    summary: op.summary,
    tags: [TAGS[op.id] ?? 'account'],
    security: securityOf(op),
    'x-svc-availability': op.availability,
    'x-svc-phase': op.phase,
    'x-svc-key-enabled': op.keyEnabled,
  };
  // Absent, not null, where no customer capability is involved (the anonymous operations).
  if (op.capability !== null) o['x-svc-key-capability'] = op.capability;
  const params = parametersOf(op);
  if (params.length) o.parameters = params;
  if (body) o.requestBody = { required: body.required, description: body.description, content: { 'application/json': { schema: body.schema } } };
  o.responses = responsesOf(op);
  return o;
}

// ---------------------------------------------------------------- the document

let base: Json | null = null;

function buildDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Car Rental Customer and Agent API',
      version: API_VERSION,
      description:
        'The customer and agent API: anonymous catalog, customer account, reservations, and customer action links. Money is integer US cents (fields ending in _usd are whole dollars); dates are car-local `YYYY-MM-DDTHH:MM`, never converted (invoice created_at is UTC). Each operation carries x-svc-availability, x-svc-phase, x-svc-key-capability (absent on the anonymous operations) and x-svc-key-enabled. Generated by the carrental sandbox from the zod schemas the CLI validates with.',
    },
    servers: [],
    tags: [
      { name: 'catalog', description: 'Anonymous: cars and quotes (phase 1, available)' },
      { name: 'account', description: 'The customer behind the credential' },
      { name: 'reservations', description: 'Create and cancel (booking_write keys, Idempotency-Key required)' },
      { name: 'customer actions', description: 'Links the customer opens to pay, add a card or extend; nothing happens until they confirm on the page' },
    ],
    paths,
    components: {
      schemas: componentSchemas(),
      parameters: PARAMETERS,
      headers: {
        RetryAfter: { description: 'Seconds to wait before retrying (integer, at least 1)', required: true, schema: { type: 'integer', minimum: 1 } },
        IdempotentReplayed: { description: '`true` when this is the stored result of an earlier request with the same Idempotency-Key', schema: { type: 'string', const: 'true' } },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'svc_<API_KEY>',
          description: 'A customer API key (or the customer web application’s own login token). Send exactly one credential header: two give 401 conflicting_credentials.',
        },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A customer API key, `svc_...`' },
      },
    },
  };
}

export interface OpenapiOptions {
  /** The base URL the document names as its server (ends with /v1). */
  serverUrl?: string;
}

/** The whole document; a fresh object each call (the generated part is built once). */
export function openapiDocument(opts: OpenapiOptions = {}): object {
  base ??= buildDocument();
  const doc = structuredClone(base);
  doc.servers = opts.serverUrl
    ? [{ url: opts.serverUrl }]
    : [{ url: '{origin}/v1', variables: { origin: { default: 'http://127.0.0.1:8787', description: 'Where the API runs, for example `carrental sandbox serve --port 8787`' } } }];
  return doc;
}

/** GET /v1/openapi.json: public, outside the operations (no credential, no rate budget). */
export function openapiReply(method: string, serverUrl: string, requestId: string): Reply {
  if (method !== 'GET' && method !== 'HEAD') {
    const reply = errorReply(apiError('method_not_allowed', `${method} is not allowed here; allowed: GET, HEAD`), requestId);
    return { ...reply, headers: { ...reply.headers, Allow: 'GET, HEAD', 'X-Request-Id': requestId } };
  }
  return jsonReply(200, openapiDocument({ serverUrl }), { 'X-Request-Id': requestId });
}
