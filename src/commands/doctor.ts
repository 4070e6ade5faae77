// `carrental doctor`: a smoke check for a deployment and a key. It reads the config, reaches
// the base URL, checks the credential and its capability, and asks every operation of the
// API whether it answers for this key, with requests that cannot change anything:
// - reads are GETs; a real reservation is never read (reading one while money is owed
//   prepares a debt invoice), a reservation uuid that cannot exist is used instead;
// - the link endpoints and cancel name a random reservation uuid that cannot exist (a
//   deployed operation answers 404), and create is sent an empty body (a deployed
//   operation answers 400), both with a fresh Idempotency-Key;
// - the card add-link records a handoff on the account, so it is only probed when asked.
// The cancel probe also tells the capability: 404 means the key may cancel (booking_write),
// 403 api_key_write_upgrade_required means read_only.
import { randomUUID } from 'node:crypto';
import type { ApiClient, AuthMode, Schema } from '../api/client.js';
import { isRedirectError, movedBaseUrl, NO_RETRY, READ_RETRY } from '../api/client.js';
import { describeRoute, proxySettings, routeFor, unusableProxy } from '../api/proxy.js';
import { OPERATIONS, type Operation } from '../api/operations.js';
import { maskKey, scrubSecrets } from '../text/redact.js';
import * as S from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { hintFor } from '../cmdkit/hints.js';
import { makeClient, openConfig, output, resolveTarget, type Target } from '../session/services.js';
import { CliError, usageError } from '../errors.js';
import type { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';

export type DoctorInput = InputOf<'doctor'>;

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';
export type OpStatus = 'ok' | 'not_deployed' | 'refused' | 'failed' | 'skipped';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
}

export interface OpResult {
  id: string;
  method: string;
  path: string;
  availability: Operation['availability'];
  phase: number;
  required: boolean;
  status: OpStatus;
  http_status: number | null;
  error_code: string | null;
  detail: string;
  /** The request actually sent, e.g. `DELETE /my/reservation/<random uuid>`. */
  probe: string | null;
}

export interface DoctorReport {
  ok: boolean;
  exit_code: number;
  profile: string;
  config_file: { path: string; exists: boolean };
  base_url: string | null;
  sandbox: boolean;
  key: { source: string; masked: string } | null;
  customer: { uuid: string; first_name: string } | null;
  capability: 'booking_write' | 'read_only' | 'unknown' | null;
  checks: CheckResult[];
  operations: OpResult[];
  problems: string[];
}

/** What a probe expects from a deployed operation that works. */
type Expect = 'data' | 'absent' | 'rejected';

interface Probe {
  method: string;
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  auth: AuthMode;
  headers?: Record<string, string>;
  /** data: 2xx matching the schema; absent: 404 for a uuid that cannot exist; rejected: 400 for an invalid body. */
  expect: Expect;
  schema?: Schema<unknown>;
  envelope?: boolean;
  /** Refusals that still prove the operation answers (a quote refusing the probe dates). */
  answersWith?: number[];
  /** How the report names the request. */
  label: string;
}

interface Answer {
  status: number;
  body: unknown;
  errorCode?: string;
  error?: string;
}

type Sent = { answer: Answer; networkError?: undefined; redirects?: string[] } | { answer?: undefined; networkError: string };

const KNOWN_IDS = OPERATIONS.map((o) => o.id);

export function parseRequire(values: string[] | undefined): Set<string> {
  const ids = new Set<string>();
  for (const value of values ?? []) {
    for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
      if (part === 'all') KNOWN_IDS.forEach((id) => ids.add(id));
      else if (KNOWN_IDS.includes(part)) ids.add(part);
      else throw usageError(`--require: unknown operation "${part}"`, `known: all, ${KNOWN_IDS.join(', ')}`);
    }
  }
  return ids;
}

/** Car-local YYYY-MM-DDTHH:MM `days` from now at 10:00, inside any sane opening hours. */
function futureLocal(now: Date, days: number): string {
  return `${new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10)}T10:00`;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** A server's string as the report holds it: no terminal controls, never the key. */
type Safe = (text: string) => string;

function answerOf(status: number, body: unknown, safe: Safe): Answer {
  const obj = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? safe(v) : undefined);
  return { status, body, errorCode: text(obj.error_code), error: text(obj.error) };
}

class Prober {
  /** How an unknown route answers here: a 404 that looks like it means "not deployed". */
  private routeMissing?: Answer;

  constructor(
    private readonly ctx: Context,
    private readonly client: ApiClient,
    private readonly out: Output,
    private readonly safe: Safe,
  ) {}

  async send(probe: Omit<Probe, 'expect' | 'label'>): Promise<Sent> {
    const isRead = probe.method === 'GET';
    // 429/503 are retried here (the client returns error statuses as they are with allowErrorStatus)
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.client.request<unknown>({
          method: probe.method,
          path: probe.path,
          query: probe.query,
          body: probe.body,
          auth: probe.auth,
          headers: probe.headers,
          envelope: false,
          allowErrorStatus: true,
          retry: isRead ? READ_RETRY : NO_RETRY,
        });
        const retryAfter = Number(res.headers['retry-after']);
        if ((res.status === 429 || res.status === 503) && attempt < 3 && retryAfter >= 0 && retryAfter <= 10) {
          this.out.progress(`${probe.method} ${this.safe(probe.path)}: HTTP ${res.status}, retrying in ${retryAfter || 1} s`);
          await this.ctx.sleep(Math.max(1, retryAfter) * 1000);
          continue;
        }
        return { answer: answerOf(res.status, res.body, this.safe), redirects: res.redirects };
      } catch (err) {
        // a refused redirect carries the base URL to configure: the finding itself, said with it
        if (err instanceof CliError && err.kind !== 'interrupted' && err.kind !== 'usage') return { networkError: isRedirectError(err) ? `${err.message} (${hintFor(err)})` : err.message };
        throw err;
      }
    }
  }

  /** Learns how this server answers a route that does not exist, to tell it from "no such reservation". */
  async learnMissingRoute(auth: AuthMode): Promise<void> {
    const sent = await this.send({ method: 'GET', path: `/my/carrental-doctor-${randomUUID()}`, auth });
    if (sent.answer?.status === 404) this.routeMissing = sent.answer;
  }

  isMissingRoute(a: Answer): boolean {
    if (a.status === 405) return true;
    if (a.status !== 404) return false;
    if (this.routeMissing) return a.errorCode === this.routeMissing.errorCode && a.error === this.routeMissing.error;
    // without a reference answer, a 404 that names no error is taken for an unknown route
    return a.errorCode === undefined;
  }
}

/**
 * A base URL that answers through a redirect works (same origin: followed), but every
 * request pays a round trip more and a write depends on the server keeping it: a finding,
 * with the base URL to configure.
 */
function networkFindings(baseUrl: string, redirects: string[], check: (name: string, status: CheckStatus, detail: string) => void): void {
  const last = redirects.at(-1);
  if (!last) return;
  const moved = movedBaseUrl(baseUrl, `${baseUrl}/cars?limit=1`, last);
  check('redirect', 'warn', `GET /cars was redirected to ${clean(last)}${moved ? `: set the base URL to ${clean(moved)} (\`carrental config set base_url ${clean(moved)}\`)` : ''}`);
}

/** An error as one finding: its line and, in brackets, what to do. */
function withHint(err: CliError): string {
  const hint = hintFor(err);
  return `${err.message}${hint ? ` (${hint})` : ''}`;
}

/** Sorts an answer into the report's words. */
export function classify(probe: Probe, sent: Sent, isMissingRoute: (a: Answer) => boolean): Pick<OpResult, 'status' | 'http_status' | 'error_code' | 'detail'> {
  if (!sent.answer) return { status: 'failed', http_status: null, error_code: null, detail: sent.networkError };
  const a = sent.answer;
  const base = { http_status: a.status, error_code: a.errorCode ?? null };
  const code = a.errorCode ? ` ${a.errorCode}` : '';
  if (a.status >= 200 && a.status < 300) {
    if (probe.expect !== 'data') return { ...base, status: 'failed', detail: `HTTP ${a.status} for a probe that must be refused: investigate` };
    let payload = a.body;
    if (probe.envelope !== false) {
      if (typeof payload !== 'object' || payload === null || !('data' in payload)) return { ...base, status: 'failed', detail: 'malformed response: no "data" envelope' };
      payload = (payload as { data: unknown }).data;
    }
    const parsed = probe.schema?.safeParse(payload);
    if (parsed && !parsed.success) {
      const issue = parsed.error.issues[0];
      return { ...base, status: 'failed', detail: `unexpected response: ${['data', ...issue.path.map(String)].join('.')}: ${issue.message}` };
    }
    return { ...base, status: 'ok', detail: `HTTP ${a.status}` };
  }
  if (a.errorCode === 'api_key_operation_not_enabled') return { ...base, status: 'not_deployed', detail: 'not yet available to API keys (403 api_key_operation_not_enabled)' };
  if (isMissingRoute(a)) return { ...base, status: 'not_deployed', detail: `no such route (HTTP ${a.status}${code})` };
  if (a.status === 401) return { ...base, status: 'failed', detail: `credential rejected (401${code})` };
  if (a.status === 403) {
    if (a.errorCode === 'api_key_write_upgrade_required') return { ...base, status: 'refused', detail: 'deployed; this key is read_only (403 api_key_write_upgrade_required)' };
    if (a.errorCode === 'card_payments_not_enabled') return { ...base, status: 'refused', detail: 'deployed; card payments are not enabled for this account' };
    return { ...base, status: 'refused', detail: `deployed; refused for this key (403${code})` };
  }
  if (a.status === 404 && probe.expect === 'absent') return { ...base, status: 'ok', detail: `deployed (404${code} for a uuid that cannot exist)` };
  if (a.status === 400 && probe.expect === 'rejected') return { ...base, status: 'ok', detail: `deployed (400${code} for the empty probe body)` };
  if (probe.answersWith?.includes(a.status)) return { ...base, status: 'ok', detail: `answers (HTTP ${a.status}${code} for the probe request)` };
  return { ...base, status: 'failed', detail: `HTTP ${a.status}${code}${a.error ? `: ${a.error}` : ''}` };
}

export async function run(input: DoctorInput, ctx: Context): Promise<number> {
  if (input.contract) return (await import('../cmdkit/doctor-contract.js')).run(input, ctx);
  if (input.junit !== undefined) throw usageError('--junit writes the findings of --contract: give --contract too');
  const required = parseRequire(input.require);
  const out = output(ctx);
  const checks: CheckResult[] = [];
  const problems: string[] = [];
  const check = (name: string, status: CheckStatus, detail: string) => {
    checks.push({ name, status, detail });
    if (status === 'fail') problems.push(`${name}: ${detail}`);
  };

  const config = openConfig(ctx);
  const report: DoctorReport = {
    ok: false,
    exit_code: 1,
    profile: ctx.globals.profile,
    config_file: { path: config.path, exists: config.exists() },
    base_url: null,
    sandbox: false,
    key: null,
    customer: null,
    capability: null,
    checks,
    operations: [],
    problems,
  };
  const finish = (code: number) => {
    report.ok = code === 0;
    report.exit_code = code;
    print(out, report);
    return code;
  };

  let profiles: ReturnType<typeof config.profiles>;
  try {
    profiles = config.profiles();
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    check('config', 'fail', withHint(err));
    return finish(err.exitCode);
  }
  const warning = config.permissionWarning();
  check('config', warning ? 'warn' : 'ok', warning ?? (report.config_file.exists ? `found ${config.path}` : `no config file at ${config.path} (settings from flags and environment)`));
  const inFile = Object.hasOwn(profiles, ctx.globals.profile);
  check(
    'profile',
    inFile || ctx.globals.profile === 'default' ? 'ok' : 'warn',
    inFile ? `"${ctx.globals.profile}" found in the config file` : `"${ctx.globals.profile}" is not in the config file${ctx.globals.profile === 'default' ? ' (using flags and environment)' : ''}`,
  );

  let target: Target;
  try {
    target = await resolveTarget(ctx, config);
  } catch (err) {
    if (!(err instanceof CliError) || err.kind === 'interrupted') throw err;
    check('base URL', 'fail', withHint(err));
    return finish(err.exitCode);
  }
  report.base_url = target.baseUrl;
  report.sandbox = target.sandbox;
  check('base URL', 'ok', `${target.baseUrl}${target.sandbox ? ' (embedded sandbox)' : ''}`);
  // the route a request to the base URL takes (HTTPS_PROXY / HTTP_PROXY / NO_PROXY)
  if (URL.canParse(target.baseUrl)) {
    const route = routeFor(new URL(target.baseUrl), proxySettings(ctx.env));
    // a proxy setting no request can go through (SOCKS): the one failure, named, before any probe
    const unusable = 'proxy' in route ? unusableProxy(route.proxy) : undefined;
    if (unusable) {
      check('network', 'fail', unusable);
      return finish(2);
    }
    check('network', 'ok', describeRoute(route));
  }
  const keySource = { env: 'CARRENTAL_API_KEY', profile: `profile "${target.profile}"`, 'sandbox-demo': 'the sandbox demo customer' } as const;
  if (target.apiKey) report.key = { source: target.keySource ?? 'unknown', masked: maskKey(target.apiKey) };

  const client = makeClient(ctx, target, out);
  const safe: Safe = (text) => scrubSecrets(clean(text), [target.apiKey]);
  const prober = new Prober(ctx, client, out, safe);
  const hasKey = !!target.apiKey;

  // Reachability: the anonymous car list, which every deployment serves.
  out.progress('reaching the API…');
  const t0 = Date.now();
  const reach = await prober.send({ method: 'GET', path: '/cars', query: { limit: 1 }, auth: 'none' });
  if (!reach.answer) {
    check('reachable', 'fail', reach.networkError);
    for (const op of OPERATIONS) report.operations.push(opRow(op, required.has(op.id) || op.availability === 'available', null, { status: 'skipped', http_status: null, error_code: null, detail: 'API not reachable' }));
    out.clearProgress();
    return finish(6);
  }
  check('reachable', reach.answer.status < 500 ? 'ok' : 'fail', `GET /cars answered HTTP ${reach.answer.status} in ${Date.now() - t0} ms`);
  networkFindings(target.baseUrl, reach.redirects ?? [], check);

  await prober.learnMissingRoute(hasKey ? 'key' : 'none');

  const now = ctx.now();
  const fake = randomUUID();
  const firstCar = (() => {
    const parsed = S.CarsPage.safeParse((reach.answer.body as { data?: unknown } | undefined)?.data);
    return parsed.success ? parsed.data.cars[0]?.car_alias : undefined;
  })();
  const realTrip: { uuid?: string; invoice?: string } = {};

  const probes: Record<string, () => Probe> = {
    listCars: () => ({ method: 'GET', path: '/cars', query: { limit: 1 }, auth: 'none', expect: 'data', schema: S.CarsPage, label: 'GET /cars?limit=1' }),
    getCar: () =>
      firstCar
        ? { method: 'GET', path: `/cars/${encodeURIComponent(firstCar)}`, auth: 'none', expect: 'data', schema: S.Car, label: `GET /cars/${safe(firstCar)}` }
        : { method: 'GET', path: `/cars/carrental-doctor-${fake}`, auth: 'none', expect: 'absent', label: 'GET /cars/<alias that cannot exist>' },
    quote: () => ({
      method: 'POST',
      path: '/reservation/quote',
      auth: hasKey ? 'key' : 'none',
      body: { car_alias: firstCar ?? `carrental-doctor-${fake}`, date_checkin: futureLocal(now, 30), date_checkout: futureLocal(now, 33) },
      expect: firstCar ? 'data' : 'absent',
      schema: S.Quote,
      // the probe dates may not suit the car (taken, outside hours): a refusal still answers
      answersWith: [400, 409],
      label: `POST /reservation/quote${hasKey ? ' (with the key)' : ''}`,
    }),
    getProfile: () => ({ method: 'GET', path: '/my/profile', auth: 'key', expect: 'data', schema: S.Profile, label: 'GET /my/profile' }),
    getVerification: () => ({ method: 'GET', path: '/my/verification', auth: 'key', expect: 'data', schema: S.VerificationStatus, label: 'GET /my/verification' }),
    listCards: () => ({ method: 'GET', path: '/my/billing/cards', auth: 'key', expect: 'data', schema: S.CardList, label: 'GET /my/billing/cards' }),
    cardAddLink: () => ({ method: 'POST', path: '/my/billing/cards/add-link', auth: 'key', headers: { 'x-agent-client': `carrental/${ctx.version}` }, expect: 'data', schema: S.ManualAction, label: 'POST /my/billing/cards/add-link' }),
    listTrips: () => ({ method: 'GET', path: '/my/trips', auth: 'key', expect: 'data', schema: S.TripsList, label: 'GET /my/trips' }),
    getReservation: () => ({ method: 'GET', path: `/my/reservation/${fake}`, auth: 'key', expect: 'absent', label: 'GET /my/reservation/<random uuid>' }),
    listReservationInvoices: () =>
      realTrip.uuid
        ? { method: 'GET', path: `/my/reservation/${encodeURIComponent(realTrip.uuid)}/invoices`, auth: 'key', expect: 'data', envelope: false, schema: S.InvoiceList, label: `GET /my/reservation/${realTrip.uuid}/invoices` }
        : { method: 'GET', path: `/my/reservation/${fake}/invoices`, auth: 'key', expect: 'absent', envelope: false, label: 'GET /my/reservation/<random uuid>/invoices' },
    getInvoice: () =>
      realTrip.invoice
        ? { method: 'GET', path: `/my/billing/invoice/${encodeURIComponent(realTrip.invoice)}`, auth: 'key', expect: 'data', schema: S.Invoice, label: `GET /my/billing/invoice/${realTrip.invoice}` }
        : { method: 'GET', path: `/my/billing/invoice/${fake}`, auth: 'key', expect: 'absent', label: 'GET /my/billing/invoice/<random uuid>' },
    createReservation: () => ({ method: 'POST', path: '/my/reservation', auth: 'key', body: {}, headers: { 'idempotency-key': randomUUID() }, expect: 'rejected', label: 'POST /my/reservation with an empty body' }),
    cancelReservation: () => ({ method: 'DELETE', path: `/my/reservation/${fake}`, auth: 'key', headers: { 'idempotency-key': randomUUID() }, expect: 'absent', label: 'DELETE /my/reservation/<random uuid>' }),
    paymentLink: () => ({ method: 'POST', path: `/my/reservation/${fake}/payment-link`, auth: 'key', body: { payment_type: 'rent' }, headers: { 'x-agent-client': `carrental/${ctx.version}` }, expect: 'absent', label: 'POST /my/reservation/<random uuid>/payment-link' }),
    extensionPrice: () => ({
      method: 'POST',
      path: `/my/billing/reservation/${fake}/extension/price`,
      auth: 'key',
      body: { modification_type: 'extend', new_checkout_date_time_local: futureLocal(now, 40) },
      expect: 'absent',
      label: 'POST /my/billing/reservation/<random uuid>/extension/price',
    }),
    extensionLink: () => ({ method: 'POST', path: `/my/reservation/${fake}/extension-link`, auth: 'key', body: {}, headers: { 'x-agent-client': `carrental/${ctx.version}` }, expect: 'absent', label: 'POST /my/reservation/<random uuid>/extension-link' }),
  };

  for (const op of OPERATIONS) {
    const isRequired = required.has(op.id) || op.availability === 'available';
    const makeProbe = probes[op.id];
    if (!makeProbe) {
      report.operations.push(opRow(op, isRequired, null, { status: 'skipped', http_status: null, error_code: null, detail: 'no probe known for this operation' }));
      continue;
    }
    if (op.auth === 'key' && !hasKey) {
      report.operations.push(opRow(op, isRequired, null, { status: 'skipped', http_status: null, error_code: null, detail: 'no API key' }));
      continue;
    }
    if (op.id === 'cardAddLink' && !required.has(op.id)) {
      report.operations.push(opRow(op, false, null, { status: 'skipped', http_status: null, error_code: null, detail: 'not probed: it records a link handoff on the account (--require cardAddLink to probe it)' }));
      continue;
    }
    const probe = makeProbe();
    // labels hold server strings (the first car's alias): cleaned like every progress line
    out.progress(`probing ${safe(probe.label)}…`);
    const sent = op.id === 'listCars' ? reach : await prober.send(probe);
    const result = classify(probe, sent, (a) => prober.isMissingRoute(a));
    report.operations.push(opRow(op, isRequired, probe.label, result));
    if (result.status !== 'ok' || !sent.answer) continue;
    // what a working read teaches the next probes and the report
    const data = (sent.answer.body as { data?: unknown } | undefined)?.data;
    if (op.id === 'getProfile') {
      const p = S.Profile.safeParse(data);
      // the spec requires neither field; the report names the customer only when both came
      if (p.success && p.data.uuid !== undefined && p.data.first_name !== undefined) report.customer = { uuid: safe(p.data.uuid), first_name: safe(p.data.first_name) };
    } else if (op.id === 'listTrips') {
      const t = S.TripsList.safeParse(data);
      const uuid = t.success ? [...t.data.history, ...t.data.active][0]?.uuid : undefined;
      // a server's string, so it goes into the path encoded and into the labels cleaned
      if (uuid !== undefined) realTrip.uuid = safe(uuid);
    } else if (op.id === 'listReservationInvoices' && Array.isArray(sent.answer.body)) {
      const first = (sent.answer.body[0] as { id?: unknown } | undefined)?.id;
      if (typeof first === 'string') realTrip.invoice = safe(first);
    }
  }
  out.clearProgress();

  // The credential: any key operation that answered tells.
  const keyOps = report.operations.filter((r) => OPERATIONS.find((o) => o.id === r.id)?.auth === 'key' && r.http_status !== null);
  if (!hasKey) {
    const needsKey = input.write || OPERATIONS.some((o) => o.auth === 'key' && required.has(o.id));
    check('credential', needsKey ? 'fail' : 'skip', 'no API key (set CARRENTAL_API_KEY or run `carrental auth login`); key operations were not probed');
  } else {
    const source = target.keySource ? keySource[target.keySource] : 'unknown';
    if (keyOps.some((r) => r.http_status === 401)) {
      check('credential', 'fail', `${maskKey(target.apiKey)} from ${source} was rejected (401): run \`carrental auth login\` with a current key`);
    } else if (keyOps.some((r) => r.status === 'ok' || r.status === 'refused')) {
      const who = report.customer ? `; it belongs to ${report.customer.first_name} (customer ${report.customer.uuid})` : '';
      check('credential', 'ok', `${maskKey(target.apiKey)} from ${source} is valid${who}`);
    } else {
      check('credential', 'warn', `${maskKey(target.apiKey)} from ${source}: no key operation is deployed, so it could not be checked`);
    }
  }

  // The capability, from the cancel probe (see the header comment).
  const cancel = report.operations.find((r) => r.id === 'cancelReservation');
  if (hasKey && cancel) {
    report.capability = cancel.status === 'ok' ? 'booking_write' : cancel.error_code === 'api_key_write_upgrade_required' ? 'read_only' : 'unknown';
    const how = 'probe: DELETE of a random reservation uuid with a fresh Idempotency-Key, which cannot cancel anything';
    const text =
      report.capability === 'booking_write'
        ? `booking_write: may create and cancel reservations (${how})`
        : report.capability === 'read_only'
          ? `read_only: cannot create or cancel; a booking_write key is created in the account settings (${how})`
          : `unknown: cancel did not answer for this key (${cancel.detail})`;
    const status: CheckStatus = input.write && report.capability !== 'booking_write' ? 'fail' : report.capability === 'unknown' ? 'skip' : 'ok';
    check('capability', status, text);
  } else if (input.write) {
    check('capability', 'fail', 'unknown: no API key');
  }

  for (const r of report.operations) {
    const failing = r.status === 'failed' || (r.required && r.status !== 'ok');
    if (failing) problems.push(`${r.id} (${r.method} ${r.path}): ${r.status.replace('_', ' ')}: ${r.detail}`);
  }
  if (problems.length === 0) return finish(0);
  // a credential or capability problem is an auth problem (exit 3); anything else exit 1
  return finish(checks.some((k) => (k.name === 'credential' || k.name === 'capability') && k.status === 'fail') ? 3 : 1);
}

function opRow(op: Operation, required: boolean, probe: string | null, result: Pick<OpResult, 'status' | 'http_status' | 'error_code' | 'detail'>): OpResult {
  const { status, http_status, error_code, detail } = result;
  return { id: op.id, method: op.method, path: op.path, availability: op.availability, phase: op.phase, required, status, http_status, error_code, detail, probe };
}

/** ok green, a failure red, a warning or a refusal yellow; the rest as is (on a terminal with colour on only). */
function paintResult(out: Output, text: string): string {
  if (text === 'ok') return out.color.green(text);
  if (text === 'fail' || text === 'FAILED') return out.color.red(text);
  if (text === 'warn' || text === 'refused' || text === 'not deployed') return out.color.yellow(text);
  return text;
}

const OP_WORDS: Record<OpStatus, string> = { ok: 'ok', not_deployed: 'not deployed', refused: 'refused', failed: 'FAILED', skipped: 'skipped' };

function print(out: Output, report: DoctorReport): void {
  if (out.json) {
    out.printJson(report);
  } else {
    out.heading('Checks');
    out.table(['CHECK', 'RESULT', 'DETAIL'], report.checks.map((k) => [k.name, k.status, k.detail]), { text: [2], paint: (col, t) => (col === 1 ? paintResult(out, t) : t) });
    if (report.operations.length) {
      out.line();
      out.heading('Operations');
      out.table(
        ['OPERATION', 'REQUEST', 'SPEC', 'RESULT', 'DETAIL'],
        report.operations.map((r) => [
          `${r.id}${r.required ? ' *' : ''}`,
          `${r.method} ${r.path}`,
          `phase ${r.phase}, ${r.availability}`,
          OP_WORDS[r.status],
          r.detail,
        ]),
        // the operation id is what --require takes: never cut; the spec's marks go first on a narrow terminal
        { ids: [0], text: [1, 2, 4], optional: [2], paint: (col, t) => (col === 3 ? paintResult(out, t) : t) },
      );
      out.info('* required: marked available in the spec, or named with --require');
    }
  }
  // the verdict in colour on a terminal: green when all is well, red when not
  if (report.problems.length === 0) out.info(out.color.green('doctor: everything required works'));
  else {
    out.info(out.color.red(`doctor: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}:`));
    for (const p of report.problems) out.info(`  - ${clean(p)}`);
  }
}
