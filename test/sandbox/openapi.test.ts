// The OpenAPI document against the sandbox's REAL answers: every operation is called over
// HTTP (successes and errors), and each response body is validated with ajv (JSON Schema
// 2020-12, strict) against the schema the document gives for that path, method and status;
// each request body sent is validated against the document's request body too.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, OPERATIONS } from '../../src/api/operations.js';
import { openapiDocument } from '../../src/sandbox/openapi.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { type CallResult, type Harness, availableCar, newKey, startHarness, tripBody } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

const BASE = 'https://carrental.test/openapi.json';
const pointer = (...parts: (string | number)[]) => parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

let h: Harness;
let doc: Doc;
let ajv: InstanceType<typeof Ajv2020>;
const covered = new Map<string, Set<number>>();

beforeAll(async () => {
  h = await startHarness({ config: { maxActiveReservations: 100 } });
  doc = openapiDocument();
  ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  // The document's top-level members are not schema keywords; declared so strict mode
  // accepts the whole document as one resource whose JSON pointers the refs resolve in.
  for (const k of Object.keys(doc)) ajv.addKeyword(k);
  ajv.addSchema({ ...doc, $id: BASE });
});
afterAll(() => h.close());

function validatorAt(...parts: (string | number)[]): ValidateFunction {
  const v = ajv.getSchema(`${BASE}#/${pointer(...parts)}`);
  if (!v) throw new Error(`no schema at ${parts.join(' ')}`);
  return v;
}

/** The document's path template and operation for a concrete request. */
function operationFor(method: string, path: string): { template: string; op: Doc } {
  const bare = path.split('?')[0];
  for (const [template, item] of Object.entries<Doc>(doc.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(bare) && item[method.toLowerCase()]) return { template, op: item[method.toLowerCase()] };
  }
  throw new Error(`the document has no operation for ${method} ${bare}`);
}

function expectValid(v: ValidateFunction, value: unknown, what: string): void {
  const ok = v(value);
  expect(ok, `${what}: ${JSON.stringify(v.errors, null, 1)}\n${JSON.stringify(value).slice(0, 400)}`).toBe(true);
}

/** Sends a real request, then validates its request and response bodies against the document. */
async function checked(method: string, path: string, opts: Parameters<Harness['call']>[2] = {}, expectStatus?: number): Promise<CallResult> {
  const { template, op } = operationFor(method, path);
  // A body sent to succeed must be one the document allows (error cases send bad ones on purpose).
  if (expectStatus !== undefined && expectStatus < 300 && opts.body !== undefined && typeof opts.body !== 'string' && op.requestBody) {
    expectValid(validatorAt('paths', template, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema'), opts.body, `request ${method} ${path}`);
  }
  const res = await h.call(method, path, opts);
  if (expectStatus !== undefined) expect(res.status, res.text).toBe(expectStatus);
  const key = String(res.status) in op.responses ? String(res.status) : 'default';
  expect(op.responses[key].content['application/json'], `${method} ${path} ${res.status}`).toBeDefined();
  expectValid(validatorAt('paths', template, method.toLowerCase(), 'responses', key, 'content', 'application/json', 'schema'), res.json, `${res.status} of ${method} ${path}`);
  // every error code the sandbox answers is one the document lists for that status
  if (res.status >= 400 && key !== 'default' && res.json?.error_code) expect(op.responses[key]['x-error-codes'], `${method} ${path} ${res.status}`).toContain(res.json.error_code);
  if (key !== 'default') {
    for (const [name, header] of Object.entries<Doc>(op.responses[key].headers ?? {})) {
      const required = header.$ref ? doc.components.headers[header.$ref.split('/').pop()].required : header.required;
      if (required) expect(res.headers.get(name), `${name} on ${res.status} of ${method} ${path}`).toMatch(/^\d+$/);
    }
  }
  const set = covered.get(op.operationId) ?? new Set<number>();
  set.add(res.status);
  covered.set(op.operationId, set);
  return res;
}

describe('the document', () => {
  it('is OpenAPI 3.1 with version 1.0.0-phase1, both credential schemes, and every operation with its markers', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0-phase1');
    expect(API_VERSION).toBe('1.0.0-phase1');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.apiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    const ids: string[] = [];
    for (const op of OPERATIONS) {
      const o = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(o, `${op.method} ${op.path}`).toBeDefined();
      ids.push(o.operationId);
      expect(o).toMatchObject({
        operationId: op.id,
        'x-svc-availability': op.availability,
        'x-svc-phase': op.phase,
        'x-svc-key-enabled': op.keyEnabled,
      });
      // absent, not null, on the anonymous operations
      if (op.capability === null) expect(o, op.id).not.toHaveProperty('x-svc-key-capability');
      else expect(o['x-svc-key-capability'], op.id).toBe(op.capability);
      expect(o.responses['200'].content['application/json'].schema).toBeDefined();
      expect(o.responses.default.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
    expect(new Set(ids).size).toBe(16);
    const count = Object.values<Doc>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(count).toBe(16);
  });

  it('marks phases and availability as the spec’s Versioning table does', () => {
    const ops = Object.values<Doc>(doc.paths).flatMap((item) => Object.values<Doc>(item));
    const byId = Object.fromEntries(ops.map((o) => [o.operationId, o]));
    for (const id of ['listCars', 'getCar', 'quote']) expect(byId[id]).toMatchObject({ 'x-svc-availability': 'available', 'x-svc-phase': 1 });
    for (const id of ['createReservation', 'cancelReservation']) {
      expect(byId[id]).toMatchObject({ 'x-svc-availability': 'planned', 'x-svc-phase': 3, 'x-svc-key-capability': 'booking_write' });
    }
    const phase2 = ops.filter((o) => o['x-svc-phase'] === 2).map((o) => o.operationId).sort();
    expect(phase2).toEqual(['cardAddLink', 'extensionLink', 'extensionPrice', 'getInvoice', 'getProfile', 'getReservation', 'getVerification', 'listCards', 'listReservationInvoices', 'listTrips', 'paymentLink'].sort());
    for (const id of phase2) expect(byId[id]).toMatchObject({ 'x-svc-availability': 'planned', 'x-svc-key-capability': 'read_only', 'x-svc-key-enabled': true });
    // Anonymous catalog: no credential; the quote optionally takes one.
    expect(byId.listCars.security).toEqual([]);
    expect(byId.quote.security).toEqual([{}, { bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(byId.getProfile.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
  });

  it('declares Idempotency-Key on create and cancel, X-Agent-Client on the three link endpoints, and the request bodies', () => {
    const params = (path: string, method: string) =>
      (doc.paths[path][method].parameters ?? []).map((p: Doc) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p));
    for (const [path, method] of [['/my/reservation', 'post'], ['/my/reservation/{uuid}', 'delete']]) {
      expect(params(path, method).find((p: Doc) => p.name === 'Idempotency-Key')).toMatchObject({ in: 'header', required: true, schema: { minLength: 16, maxLength: 128 } });
    }
    const agentOps = Object.entries<Doc>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((m) => params(path, m).some((p: Doc) => p.name === 'X-Agent-Client')).map((m) => `${m} ${path}`),
    );
    expect(agentOps.sort()).toEqual(['post /my/billing/cards/add-link', 'post /my/reservation/{uuid}/extension-link', 'post /my/reservation/{uuid}/payment-link']);
    expect(doc.components.parameters.XAgentClient).toMatchObject({ required: false });
    // an invalid value is ignored, never refused: nothing a validating proxy would reject
    expect(doc.components.parameters.XAgentClient.schema).toEqual({ type: 'string' });

    const body = (path: string) => doc.paths[path].post.requestBody;
    expect(body('/reservation/quote')).toMatchObject({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/QuoteRequest' } } } });
    expect(body('/my/reservation')).toMatchObject({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ReservationCreateRequest' } } } });
    expect(doc.components.schemas.PaymentLinkRequest).toMatchObject({ required: ['payment_type'], properties: { payment_type: { enum: ['rent', 'deposit'] } } });
    expect([...doc.components.schemas.ExtensionPriceRequest.required].sort()).toEqual(['modification_type', 'new_checkout_date_time_local']);
    expect(body('/my/reservation/{uuid}/extension-link').required).toBe(false);
    expect(doc.components.schemas.ExtensionLinkRequest.properties.checkout).toEqual({ $ref: '#/components/schemas/LocalDateTime' });
    expect([...doc.components.schemas.ReservationCreateRequest.properties.options.required].sort()).toEqual(['delivery_type', 'mileage_type', 'protection_plan']);
  });

  it('envelopes every answer in {data} except the bare invoice array; loose objects allow more fields', () => {
    for (const [path, item] of Object.entries<Doc>(doc.paths)) {
      for (const [method, op] of Object.entries<Doc>(item)) {
        const schema = op.responses['200'].content['application/json'].schema;
        if (path === '/my/reservation/{uuid}/invoices') expect(schema).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Invoice' } });
        else expect(schema, `${method} ${path}`).toMatchObject({ type: 'object', required: ['data'] });
      }
    }
    for (const name of ['Car', 'Trip', 'Invoice', 'ManualAction', 'Error', 'Profile']) expect(doc.components.schemas[name].additionalProperties).toEqual({});
  });

  it('resolves every $ref, and every component schema compiles as strict JSON Schema 2020-12', () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of new Set(refs)) {
      const target = ref.slice(2).split('/').reduce<Doc>((o, p) => o?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      expect(target, ref).toBeDefined();
    }
    for (const name of Object.keys(doc.components.schemas)) expect(() => validatorAt('components', 'schemas', name), name).not.toThrow();
  });

  it('is served at GET /v1/openapi.json (naming the sandbox as its server), not under any credential or budget', async () => {
    const res = await fetch(`${h.sb.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const served = (await res.json()) as Doc;
    expect(served.servers).toEqual([{ url: h.sb.baseUrl }]);
    expect({ ...served, servers: null }).toEqual({ ...doc, servers: null });
    const post = await fetch(`${h.sb.baseUrl}/openapi.json`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(((await post.json()) as Doc).error_code).toBe('method_not_allowed');
  });

  it('is printed by `carrental sandbox openapi`, with --base-url as its server', async () => {
    const home = new TestHome();
    try {
      const res = await runCommand(['sandbox', 'openapi'], { env: home.env() });
      expect(res.code).toBe(0);
      expect(res.stderr).toBe('');
      const printed = JSON.parse(res.stdout);
      expect(printed).toEqual(doc);
      expect(res.stdout).toContain('\n  "openapi": "3.1.0"');
      const withBase = JSON.parse((await runCommand(['--base-url', 'https://api.example.com/v1/', 'sandbox', 'openapi', '--json'], { env: home.env() })).stdout);
      expect(withBase.servers).toEqual([{ url: 'https://api.example.com/v1' }]);
    } finally {
      home.cleanup();
    }
  });
});

describe('the sandbox’s real answers match the document', () => {
  it('catalog: cars, one car, quotes (anonymous and with a key), and their errors', async () => {
    const key = h.sb.keys.read_only;
    await checked('GET', '/cars', {}, 200);
    await checked('GET', '/cars?city=miami&body_type=suv&order_by=price_desc&limit=3&offset=2', {}, 200);
    const dated = await checked('GET', '/cars?city=la&date_from=2026-04-01T10:00&date_to=2026-04-05T10:00&limit=200', {}, 200);
    const car = dated.json.data.cars.find((c: Doc) => c.is_available);
    await checked('GET', '/cars?limit=0', {}, 400);
    await checked('GET', '/cars?date_from=2026-04-01T10:00', {}, 400);
    await checked('GET', '/cars?date_from=2026-04-01&date_to=2026-04-02', {}, 400);
    await checked('GET', `/cars/${car.car_alias}`, {}, 200);
    await checked('GET', '/cars/no-such-car', {}, 404);
    expect((await checked('GET', `/cars/${car.car_alias}`, { key }, 400)).json.error_code).toBe('credentials_not_accepted');
    const body = tripBody(car.car_alias, '2026-04-01T10:00', '2026-04-05T10:00', { extras: [] });
    await checked('POST', '/reservation/quote', { body: { car_alias: car.car_alias, date_checkin: '2026-04-01T10:00', date_checkout: '2026-04-05T10:00' } }, 200);
    await checked('POST', '/reservation/quote', { key, body }, 200);
    await checked('POST', '/reservation/quote', { body: { car_alias: car.car_alias, date_checkin: '2026-04-01T10:00', date_checkout: '2026-04-05T10:00', promo_code: 'NOPE' } }, 400);
    await checked('POST', '/reservation/quote', { body: '{"car_alias":' }, 400);
    await checked('POST', '/reservation/quote', { key: 'svc_00000000000000000000000000000000', body: { car_alias: car.car_alias, date_checkin: '2026-04-01T10:00', date_checkout: '2026-04-05T10:00' } }, 401);
    await checked('POST', '/reservation/quote', { body: { car_alias: 'no-such-car', date_checkin: '2026-04-01T10:00', date_checkout: '2026-04-05T10:00' } }, 404);
  });

  it('account reads: profile, verification, cards, trips, reservations, invoices, and their errors', async () => {
    const key = h.sb.keys.booking_write;
    await checked('GET', '/my/profile', { key }, 200);
    await checked('GET', '/my/profile', {}, 401);
    await checked('GET', '/my/profile', { key, headers: { 'X-API-Key': key } }, 401);
    await checked('GET', '/my/verification', { key }, 200);
    await checked('GET', '/my/verification', { key: h.sb.keys.unverified }, 200);
    await checked('GET', '/my/verification', { key: h.extra.revoked }, 401);
    await checked('GET', '/my/billing/cards', { key }, 200);
    await checked('GET', '/my/billing/cards', { key: h.sb.keys.unverified }, 200);
    await checked('GET', '/my/billing/cards', {}, 401);
    await checked('GET', '/my/trips', { headers: { 'X-API-Key': 'not-a-key' } }, 401);
    const trips = await checked('GET', '/my/trips', { key }, 200);
    const all = [...trips.json.data.active, ...trips.json.data.history];
    expect(all.length).toBeGreaterThan(5);
    for (const t of all) {
      const detail = await checked('GET', `/my/reservation/${t.uuid}`, { key }, 200);
      const invoices = await checked('GET', `/my/reservation/${t.uuid}/invoices`, { key }, 200);
      for (const inv of invoices.json) await checked('GET', `/my/billing/invoice/${inv.id}`, { key }, 200);
      expect(detail.json.data.invoices.length).toBe(invoices.json.length);
    }
    await checked('GET', `/my/reservation/${all[0].uuid}`, { key: h.sb.keys.other_customer }, 404);
    await checked('GET', `/my/reservation/${all[0].uuid}/invoices`, { key: h.sb.keys.other_customer }, 404);
    await checked('GET', '/my/billing/invoice/00000000-0000-4000-8000-000000000000', { key }, 404);
  });

  it('reservations: create and cancel, with their errors', async () => {
    const key = h.sb.keys.booking_write;
    const car = await availableCar(h, '2026-05-01T10:00', '2026-05-04T10:00');
    const body = tripBody(car.car_alias, '2026-05-01T10:00', '2026-05-04T10:00');
    const idem = newKey();
    const created = await checked('POST', '/my/reservation', { key, body, idempotencyKey: idem }, 200);
    const replay = await checked('POST', '/my/reservation', { key, body, idempotencyKey: idem }, 200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await checked('POST', '/my/reservation', { key, body: { ...body, date_checkout: '2026-05-05T10:00' }, idempotencyKey: idem }, 409);
    await checked('POST', '/my/reservation', { key, body }, 400);
    await checked('POST', '/my/reservation', { key, body, idempotencyKey: 'short' }, 400);
    await checked('POST', '/my/reservation', { key: h.sb.keys.read_only, body, idempotencyKey: newKey() }, 403);
    await checked('POST', '/my/reservation', { key: h.sb.keys.unverified, body, idempotencyKey: newKey() }, 409);
    // the trip and promo rules the quote checks apply to a create too
    for (const bad of [
      { date_checkout: '2026-05-01T20:00' }, // trip_too_short
      { date_checkout: '2026-09-01T10:00' }, // trip_too_long
      { extras: ['no_such_extra'] }, // invalid_extra
      { options: { ...body.options, delivery_type: 'delivery' } }, // delivery_address_required
      { promo_code: 'FIRSTRIDE' }, // promo_already_used
      { promo_code: 'NOPE' }, // promo_code_not_found
      { promo_code: 'SPRING20' }, // promo_code_invalid
    ]) {
      await checked('POST', '/my/reservation', { key, body: { ...body, ...bad }, idempotencyKey: newKey() }, 400);
      await checked('POST', '/reservation/quote', { key, body: { ...body, ...bad } }, 400);
    }
    const uuid = created.json.data;
    await checked('DELETE', `/my/reservation/${uuid}`, { key, idempotencyKey: newKey() }, 200);
    await checked('DELETE', `/my/reservation/${uuid}`, { key, idempotencyKey: newKey() }, 400);
    await checked('DELETE', '/my/reservation/00000000-0000-4000-8000-000000000000', { key, idempotencyKey: newKey() }, 404);
    await checked('GET', `/my/reservation/${uuid}`, { key }, 200);
  });

  it('links and the extension price, with their errors', async () => {
    const key = h.sb.keys.read_only;
    const trips = (await h.call('GET', '/my/trips', { key })).json.data;
    const unpaid = trips.active.find((t: Doc) => t.balance_cents > 0);
    const paid = trips.active.find((t: Doc) => t.balance_cents === 0);
    const cancelled = trips.history.find((t: Doc) => t.status === 'cancelled');
    const agent = { 'X-Agent-Client': 'carrental/openapi-test' };
    await checked('POST', `/my/reservation/${unpaid.uuid}/payment-link`, { key, body: { payment_type: 'rent' }, headers: agent }, 200);
    await checked('POST', `/my/reservation/${unpaid.uuid}/payment-link`, { key, body: { payment_type: 'deposit' } }, 200);
    await checked('POST', `/my/reservation/${unpaid.uuid}/payment-link`, { key, body: '{}' }, 400);
    await checked('POST', `/my/reservation/${paid.uuid}/payment-link`, { key, body: { payment_type: 'rent' } }, 409);
    await checked('POST', `/my/reservation/${cancelled.uuid}/payment-link`, { key, body: { payment_type: 'rent' } }, 409);
    await checked('POST', '/my/reservation/00000000-0000-4000-8000-000000000000/payment-link', { key, body: { payment_type: 'rent' } }, 404);
    await checked('POST', '/my/billing/cards/add-link', { key, headers: agent }, 200);
    await checked('POST', '/my/billing/cards/add-link', { key: h.sb.keys.unverified }, 200);
    await checked('POST', '/my/billing/cards/add-link', { key: h.sb.keys.no_card_payments }, 403);
    const target = `${unpaid.date_checkout.slice(0, 10)}T18:00`;
    await checked('POST', `/my/billing/reservation/${unpaid.uuid}/extension/price`, { key, body: { modification_type: 'extend', new_checkout_date_time_local: target } }, 200);
    await checked('POST', `/my/billing/reservation/${unpaid.uuid}/extension/price`, { key, body: { modification_type: 'extend', new_checkout_date_time_local: unpaid.date_checkin } }, 400);
    await checked('POST', `/my/billing/reservation/${cancelled.uuid}/extension/price`, { key, body: { modification_type: 'extend', new_checkout_date_time_local: target } }, 400);
    await checked('POST', `/my/reservation/${unpaid.uuid}/extension-link`, { key, body: { checkout: target }, headers: agent }, 200);
    await checked('POST', `/my/reservation/${unpaid.uuid}/extension-link`, { key }, 200);
    await checked('POST', `/my/reservation/${unpaid.uuid}/extension-link`, { key, body: { checkout: 'tomorrow' } }, 400);
    await checked('POST', `/my/reservation/${cancelled.uuid}/extension-link`, { key }, 400);
  });

  it('429 and 503 carry Retry-After and the error body', async () => {
    await h.admin('PATCH', '/config', { catalogRateLimitPerMinute: 1 });
    try {
      await h.admin('POST', '/rate-limits/reset');
      await checked('GET', '/cars/no-such-car', {}, 404);
      await checked('GET', '/cars', {}, 429);
    } finally {
      await h.admin('PATCH', '/config', { catalogRateLimitPerMinute: 600 });
      await h.admin('POST', '/rate-limits/reset');
    }
    await h.admin('POST', '/faults', [
      { kind: 'error', operation: 'cardAddLink', code: 'manual_action_unavailable', times: 1 },
      { kind: 'error', operation: 'getProfile', code: 'authentication_unavailable', times: 1 },
    ]);
    await checked('POST', '/my/billing/cards/add-link', { key: h.sb.keys.read_only }, 503);
    await checked('GET', '/my/profile', { key: h.sb.keys.read_only }, 503);
  });

  it('unknown query parameters (every operation) are ignored and unknown body fields refused, as the document says', async () => {
    const key = h.sb.keys.booking_write;
    const trip = (await h.call('GET', '/my/trips', { key })).json.data.active.find((t: Doc) => t.balance_cents > 0);
    for (const op of OPERATIONS) {
      const o = doc.paths[op.path][op.method.toLowerCase()];
      if (op.id !== 'listCars') expect(o.responses['400']?.['x-error-codes'] ?? [], op.id).not.toContain('invalid_query_parameter');
    }
    for (const path of ['/cars?bogus=1&limit=1', `/cars/${trip.car.car_alias}?bogus=1`]) await checked('GET', path, {}, 200);
    for (const path of ['/my/profile?bogus=1', '/my/trips?bogus=1', `/my/reservation/${trip.uuid}?bogus=1`]) await checked('GET', path, { key }, 200);
    const bodies: [string, string, Doc][] = [
      ['/reservation/quote', 'QuoteRequest', { car_alias: trip.car.car_alias, date_checkin: '2026-06-01T10:00', date_checkout: '2026-06-03T10:00' }],
      ['/my/reservation', 'ReservationCreateRequest', tripBody(trip.car.car_alias, '2026-06-01T10:00', '2026-06-03T10:00')],
      [`/my/reservation/${trip.uuid}/payment-link`, 'PaymentLinkRequest', { payment_type: 'rent' }],
      [`/my/billing/reservation/${trip.uuid}/extension/price`, 'ExtensionPriceRequest', { modification_type: 'extend', new_checkout_date_time_local: `${trip.date_checkout.slice(0, 10)}T20:00` }],
      [`/my/reservation/${trip.uuid}/extension-link`, 'ExtensionLinkRequest', { checkout: `${trip.date_checkout.slice(0, 10)}T20:00` }],
    ];
    for (const [path, schema, body] of bodies) {
      const v = validatorAt('components', 'schemas', schema);
      expectValid(v, body, schema);
      const extra = { ...body, bogus: 1 };
      expect(v(extra), `${schema} with an unknown field`).toBe(false);
      const res = await checked('POST', path, { key, body: extra, idempotencyKey: newKey() }, 400);
      expect(res.json.error_code, path).toBe('invalid_request');
    }
    const nested = { ...tripBody(trip.car.car_alias, '2026-06-01T10:00', '2026-06-03T10:00'), options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup', child_seat: true } };
    expect(validatorAt('components', 'schemas', 'ReservationCreateRequest')(nested)).toBe(false);
    expect((await checked('POST', '/my/reservation', { key, body: nested, idempotencyKey: newKey() }, 400)).json.error_code).toBe('invalid_request');
    // The prose's name for the extension target is accepted by both.
    const alias = { date_checkout: `${trip.date_checkout.slice(0, 10)}T20:00` };
    expectValid(validatorAt('components', 'schemas', 'ExtensionLinkRequest'), alias, 'date_checkout');
    await checked('POST', `/my/reservation/${trip.uuid}/extension-link`, { key, body: alias }, 200);
  });

  it('covered every operation with a success and caught errors on most of them', () => {
    for (const op of OPERATIONS) expect([...(covered.get(op.id) ?? [])], op.id).toContain(200);
    const withErrors = [...covered.entries()].filter(([, statuses]) => [...statuses].some((s) => s >= 400));
    expect(withErrors.length).toBe(16);
  });

  it('the validation can fail: a body that breaks the schema is rejected', async () => {
    // (a profile requires no field in the spec: the verification status does)
    await h.admin('POST', '/faults', { kind: 'malformed', operation: 'getVerification', body: 'schema', times: 1 });
    const res = await h.call('GET', '/my/verification', { key: h.sb.keys.read_only });
    expect(res.json).toEqual({ data: { unexpected: true } });
    const v = validatorAt('paths', '/my/verification', 'get', 'responses', '200', 'content', 'application/json', 'schema');
    expect(v(res.json)).toBe(false);
    expect(v.errors?.map((e) => e.params)).toEqual(expect.arrayContaining([{ missingProperty: 'status' }]));
    expect(validatorAt('paths', '/my/reservation/{uuid}/invoices', 'get', 'responses', '200', 'content', 'application/json', 'schema')({ data: [] })).toBe(false);
  });
});
