// Each hint against the errors that trigger it: it names the CLI's flags and commands
// (never an API field or path), says something the error line did not, and is absent
// where it would not apply.
import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../src/api/client.js';
import { commandOf, hintFor, hintForApiError, type HintContext } from '../../src/cmdkit/hints.js';
import { CliError, type TransportFailure } from '../../src/errors.js';
import { describesMore } from '../../src/errors.js';
import { ERROR_CATALOG } from '../../src/sandbox/errors.js';
import { formatErrorLine } from '../../src/errors.js';

const U = '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10';
const op = (method: string, path: string, raw = false): HintContext => ({ method, path, raw });
const QUOTE = op('POST', '/reservation/quote');
const RESERVE = op('POST', '/my/reservation');
const CARS = op('GET', '/cars');
const CAR = op('GET', '/cars/no-such-car');
const INVOICE = op('GET', `/my/billing/invoice/${U}`);
const TRIP = op('GET', `/my/reservation/${U}`);
const EXT_PRICE = op('POST', `/my/billing/reservation/${U}/extension/price`);
const EXT_LINK = op('POST', `/my/reservation/${U}/extension-link`);
const CARD_LINK = op('POST', '/my/billing/cards/add-link');
const PAY_LINK = op('POST', `/my/reservation/${U}/payment-link`);
const VERIFY = op('GET', '/my/verification');

type Row = [name: string, code: string | undefined, status: number, ctx: HintContext, description: string | undefined, expected: RegExp | undefined];

const ROWS: Row[] = [
  // dates: the flags the user typed, not the API's fields
  ['date in the past on quote', 'date_in_past', 400, QUOTE, 'date_checkin is in the past (now is 2026-11-20 10:00 car-local)', /^give a later --from: by the server's clock/],
  ['date in the past on reserve', 'date_in_past', 400, RESERVE, 'date_checkin is in the past', /--from/],
  ['check-in outside hours', 'outside_operating_hours', 400, QUOTE, 'date_checkin must be between 08:00 and 20:00 car-local time', /^move --from inside the opening hours/],
  ['check-out outside hours', 'outside_operating_hours', 400, RESERVE, 'date_checkout must be between 08:00 and 20:00 car-local time', /^move --to inside/],
  ['too short', 'trip_too_short', 400, QUOTE, 'A trip lasts at least 24 hours', /--to, or --days/],
  ['too long', 'trip_too_long', 400, QUOTE, 'A trip lasts at most 30 days', /--days/],
  ['car taken', 'car_not_available', 409, RESERVE, 'The car is not available for these dates', /`carrental cars --from \.\.\. --to \.\.\.`/],
  // extension: never the wrong reason, never --wait
  ['extension outside hours', 'invalid_checkout', 400, EXT_PRICE, 'date_checkout must be between 08:00 and 20:00 car-local time', /`carrental trips <uuid>` shows the current check-out; give another --to/],
  ['extension of a paid trip', 'reservation_not_active', 400, EXT_LINK, 'Only a new reservation can be extended', /`carrental trips <uuid>` shows its status/],
  // 404s: what was not found decides the hint
  ['unknown invoice', 'invoice_not_found', 404, INVOICE, `No invoice ${U} for this customer`, /`carrental invoices <reservation-uuid>`/],
  ['unknown reservation', 'reservation_not_found', 404, TRIP, `No reservation ${U} for this customer`, /`carrental trips` lists your reservations/],
  ['unknown car', 'car_not_found', 404, CAR, 'No car with alias no-such-car', /`carrental cars --city la`/],
  ['wrong base URL (the API answers no such route)', 'not_found', 404, CARS, 'No operation GET /v1/v1/cars', /check the base URL/],
  ['wrong base URL (a web server, no error code)', undefined, 404, INVOICE, undefined, /check the base URL/],
  ['wrong base URL (405 from a web server)', undefined, 405, QUOTE, undefined, /check the base URL/],
  ['a path typed with `api`', 'not_found', 404, op('GET', '/nope', true), 'No operation GET /v1/nope', /^no such API path here/],
  ['a car typed with `api`: the body says it all', 'car_not_found', 404, op('GET', '/cars/x', true), 'No car with alias x', undefined],
  // accounts and verification: the command, not the endpoint
  ['driver not approved', 'driver_not_approved', 409, RESERVE, 'The driver is not approved to drive: check GET /my/verification', /^`carrental verification`/],
  ['card payments off on card-link', 'card_payments_not_enabled', 403, CARD_LINK, 'Card payments are not enabled for this account', /support/],
  ['promo typo', 'promo_code_not_found', 400, QUOTE, 'Unknown promo code NOPE', /--promo/],
  ['promo used', 'promo_already_used', 400, RESERVE, 'Promo code X can be used once and you have used it', /--promo/],
  ['promo not valid', 'promo_code_invalid', 400, RESERVE, 'Promo code X needs a trip of at least 7 days', /leave --promo out/],
  ['unknown extra', 'invalid_extra', 400, QUOTE, 'This car offers no extra jetpack (offered: gps)', /--extra/],
  ['limit on cars', 'invalid_pagination', 400, CARS, 'limit must be an integer from 1 to 200', /^--limit takes 1\.\.200/],
  ['limit with `api`', 'invalid_pagination', 400, op('GET', '/cars', true), 'limit must be an integer from 1 to 200', undefined],
  ['nothing to pay on pay-link', 'nothing_to_pay', 409, PAY_LINK, 'No unpaid deposit invoice on this reservation', /`carrental trips <uuid>`/],
  ['key given on an anonymous op via api', 'credentials_not_accepted', 400, op('GET', '/cars', true), undefined, /--anonymous/],
  ['unknown code, 400: nothing to add', 'whatever', 400, QUOTE, 'the description', undefined],
  ['rate limited', 'rate_limited', 429, CARS, undefined, /wait 3 s/],
];

/** The API's words a hint must not use: its field names and paths. */
const API_WORDS = /\b(date_checkin|date_checkout|date_from|date_to|car_alias|promo_code|checkout|payment_type|item_type)\b|(GET|POST|DELETE) \/|\/my\//;

describe('hints, row by row', () => {
  it.each(ROWS)('%s', (_name, code, status, ctx, description, expected) => {
    const hint = hintForApiError(code, status, description, code === 'rate_limited' ? 3 : undefined, ctx);
    if (expected === undefined) {
      expect(hint).toBeUndefined();
      return;
    }
    expect(hint).toMatch(expected);
    // CLI words only (item_type aside: --extra takes the item type the car lists)
    expect(hint!.replace('their item type', '')).not.toMatch(API_WORDS);
    // says something the error line does not
    const error = (code && (ERROR_CATALOG as Record<string, { error: string }>)[code]?.error) || `failed with HTTP ${status}`;
    const line = `${error} ${description ?? ''}`.toLowerCase();
    expect(line).not.toContain(hint!.toLowerCase());
  });

  it('no hint of any code suggests --wait on card-link or extend-link', () => {
    for (const code of [...Object.keys(ERROR_CATALOG), undefined]) {
      for (const ctx of [CARD_LINK, EXT_LINK, EXT_PRICE]) {
        for (const status of [400, 403, 404, 409, 429, 503]) {
          expect(hintForApiError(code, status, 'd', undefined, ctx) ?? '').not.toContain('--wait');
        }
      }
    }
  });

  it('no hint of any code, on any command, names an API field or path', () => {
    const contexts = [QUOTE, RESERVE, CARS, CAR, INVOICE, TRIP, EXT_PRICE, EXT_LINK, CARD_LINK, PAY_LINK, VERIFY];
    for (const [code, def] of Object.entries(ERROR_CATALOG)) {
      for (const ctx of contexts) {
        const hint = hintForApiError(code, def.status, 'date_checkin is wrong: see GET /my/verification', 2, ctx) ?? '';
        expect(hint.replace('their item type', ''), `${code} on ${ctx.method} ${ctx.path}`).not.toMatch(API_WORDS);
      }
    }
  });
});

describe('the operation of a request', () => {
  it('knows which command sent it', () => {
    expect(commandOf('GET', `/my/billing/invoice/${U}`)).toBe('invoice');
    expect(commandOf('DELETE', `/my/reservation/${U}`)).toBe('cancel');
    expect(commandOf('GET', `/my/reservation/${U}`)).toBe('trip');
    expect(commandOf('POST', `/my/reservation/${U}/extension-link`)).toBe('extend-link');
    expect(commandOf('GET', '/nope')).toBeUndefined();
  });
});

describe("the server's description on the error line", () => {
  it('is shown when it says more than the error', () => {
    const err = errorFromResponse(400, { error: 'Outside operating hours', error_code: 'outside_operating_hours', description: 'date_checkout must be between 08:00 and 20:00 car-local time' }, {}, `POST /my/billing/reservation/${U}/extension/price`);
    expect(formatErrorLine(err)).toBe('error: Outside operating hours: date_checkout must be between 08:00 and 20:00 car-local time (outside_operating_hours)');
  });
  it('is left out when it repeats the error', () => {
    expect(describesMore('Invalid credentials', 'Invalid credentials.')).toBe(false);
    expect(describesMore('Nothing to pay', 'nothing to pay')).toBe(false);
    expect(describesMore('Car not found', 'No car with alias x')).toBe(true);
    const err = errorFromResponse(401, { error: 'Invalid credentials', description: 'Invalid credentials' }, {}, 'GET /my/profile');
    expect(formatErrorLine(err)).toBe('error: Invalid credentials');
  });
  it('is red on a terminal, like warning: is yellow', () => {
    const err = errorFromResponse(404, { error: 'Car not found' }, {}, 'GET /cars/x');
    expect(formatErrorLine(err, [], true)).toBe('\u001b[31merror:\u001b[39m Car not found');
  });
});

describe('the embedded-sandbox note under a link', () => {
  it('offers --wait only to a command that has it (pay-link, not card-link or extend-link)', async () => {
    const { sandboxLinkNote } = await import('../../src/session/embedded-sandbox.js');
    const target = { embedded: { stablePort: 4780, links: 'own-stable', linkPort: 4780 } } as unknown as Parameters<typeof sandboxLinkNote>[0];
    expect(sandboxLinkNote(target).note).not.toContain('--wait');
    expect(sandboxLinkNote(target, 'no-wait').note).not.toContain('--wait');
    expect(sandboxLinkNote(target, 'can-wait').note).toContain('--wait');
  });
});

describe('hintFor(err): the CLI words the facts an error carries', () => {
  // each string as the transport worded it before it recorded facts instead
  const cases: Array<[TransportFailure, string]> = [
    [{ kind: 'no_key' }, 'run `carrental auth login`, set CARRENTAL_API_KEY, or try `carrental --sandbox ...`'],
    [{ kind: 'key_over_http' }, 'use the https address of the API (`carrental config set base_url https://<host>/v1` or --base-url); anonymous commands (cars, car, quote --anonymous) still work over http'],
    [{ kind: 'timeout' }, 'the outcome is unknown; rerunning the same command is safe (raise --timeout if the API is slow)'],
    [{ kind: 'unreachable' }, 'check the base URL (`carrental config get base_url`) or run `carrental doctor`; rerunning is safe'],
    [{ kind: 'proxy', setting: 'HTTPS_PROXY', tunnelStatus: 407 }, 'the proxy wants credentials: put them in its URL (http://user:password@proxy:port)'],
    [{ kind: 'proxy', setting: 'HTTPS_PROXY', tunnelStatus: 403 }, "check HTTPS_PROXY, or list the API's host in NO_PROXY to go direct; rerunning is safe"],
    [{ kind: 'proxy', setting: 'HTTP_PROXY' }, "check HTTP_PROXY, or list the API's host in NO_PROXY to go direct; rerunning is safe"],
    [{ kind: 'tls', reason: 'untrusted' }, 'if the API uses a private CA, trust it: NODE_EXTRA_CA_CERTS=/path/to/ca.pem (a PEM file, read when node starts); never turn verification off'],
    [{ kind: 'tls', reason: 'expired' }, "the server must renew its certificate (or this machine's clock is wrong: check `date`); never turn verification off"],
    [{ kind: 'tls', reason: 'not_yet_valid' }, "the server must renew its certificate (or this machine's clock is wrong: check `date`); never turn verification off"],
    [{ kind: 'tls', reason: 'wrong_host' }, 'put a host name the certificate names in the base URL (`carrental config get base_url`); never turn verification off'],
    [{ kind: 'tls', reason: 'revoked' }, 'the server must replace its certificate; never turn verification off'],
    [
      { kind: 'redirect', why: 'other_origin', location: 'https://b.example/v2/cars', origin: 'https://a.example', baseUrlToConfigure: 'https://b.example/v2' },
      'check the base URL; if the API moved, use its new base URL: `carrental config set base_url https://b.example/v2` (or --base-url)',
    ],
    [{ kind: 'redirect', why: 'method', location: '/elsewhere', origin: 'https://a.example' }, 'check the base URL'],
    [{ kind: 'redirect', why: 'too_many', location: '/v1/cars', origin: 'https://a.example' }, 'check the base URL (https://a.example); `carrental doctor` shows where it leads'],
    [{ kind: 'redirect', why: 'multiple_choices', location: '/v1/cars', origin: 'https://a.example' }, 'check the base URL (https://a.example); `carrental doctor` shows where it leads'],
    [{ kind: 'too_large', capBytes: 1024 }, 'check the base URL; if the API really answers this much, raise CARRENTAL_MAX_RESPONSE_BYTES'],
    [{ kind: 'malformed', why: 'not_json' }, 'rerun with --debug to see the response'],
    [{ kind: 'malformed', why: 'no_envelope' }, 'rerun with --debug to see the response'],
    [{ kind: 'malformed', why: 'schema' }, 'the server does not match the API this version of carrental knows; rerun with --debug to see the response'],
  ];
  it.each(cases)('%j', (transport, hint) => {
    expect(hintFor(new CliError('api', 'failed', { transport }))).toBe(hint);
  });

  it('an API error is hinted by the request it answered, the operation read from the one route table', () => {
    const err = errorFromResponse(404, { error: 'Not found', error_code: 'invoice_not_found' }, {}, `GET /my/billing/invoice/${U}`);
    expect(err.api?.request).toEqual({ method: 'GET', path: `/my/billing/invoice/${U}`, operation: 'getInvoice', typed: false });
    expect(err.hint).toBeUndefined();
    expect(hintFor(err)).toBe('`carrental invoices <reservation-uuid>` lists the invoices of a trip');
  });

  it("the thrower's own hint wins; an API error built without its request gets none (as before)", () => {
    const api = { status: 401, error_code: 'invalid_credentials' };
    expect(hintFor(new CliError('auth', 'refused', { api, hint: 'mine' }))).toBe('mine');
    expect(hintFor(new CliError('auth', 'refused', { api }))).toBeUndefined();
    expect(hintFor(new CliError('usage', 'bad'))).toBeUndefined();
  });
});
