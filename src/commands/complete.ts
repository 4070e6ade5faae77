// `carrental __complete <kind> [context]` (hidden): completion candidates for the shell
// scripts, one per line, as `value<TAB>description` where there is something to say (the
// car, dates and amount due of a reservation; the type, amount and status of an invoice).
// `context` is the first argument already typed on the line: the car whose extras `--extra`
// completes. `cancel` and `pay-link` ask for the reservations they can act on only.
//
// A completion runs on every Tab press, so this must be quick and quiet: answers are cached
// for a minute in the state directory (written whole or not at all), the whole lookup gives
// up after 2 s, nothing is ever prompted or printed to stderr, and any failure (no base URL,
// no key, no network, a bad answer) prints nothing and exits 0. The sandbox loads only when
// the profile or the flags ask for it, exactly as for any other command.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readRegularFileSync } from '../store/regular-file.js';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { NO_RETRY } from '../api/client.js';
import { Api } from '../api/endpoints.js';
import type { DynamicKind } from '../cmdkit/completion-gen.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { makeClient, resolveTarget } from '../session/services.js';
import { zoneOf } from '../input/dates.js';
import { formatCents } from '../render/money.js';
import { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { ConfigStore } from '../store/config.js';
import { stateDir } from '../store/paths.js';
import { fetchAll } from '../api/page-walk.js';

export const CACHE_TTL_MS = 60_000;
export const DEADLINE_MS = 2_000;
export const CACHE_FILE = 'completion-cache.json';
/** Reservations whose invoice lists are read (for invoices, and for a deposit due): active first, then history. */
const INVOICE_LOOKUPS = 10;
/** A description longer than this is cut: the shells show it on one line beside the value. */
const DESCRIPTION_MAX = 100;

const SAFE_CANDIDATE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const KINDS: readonly DynamicKind[] = ['cars', 'reservations', 'cancellable', 'payable', 'invoices', 'extras', 'profiles'];

export interface Candidate {
  value: string;
  description?: string;
}

interface CacheEntry {
  at: number;
  /** `value` or `value<TAB>description`, as printed */
  items: string[];
}

export async function run(input: InputOf<'__complete'>, ctx: Context): Promise<number> {
  const kind = input.kind as DynamicKind;
  if (!KINDS.includes(kind)) return 0;
  let items: string[] = [];
  try {
    items = await candidates(kind, input.context, ctx);
  } catch {
    // a completion that fails completes nothing; the user is mid-typing, not asking for errors
  }
  if (items.length) ctx.io.stdout.write(items.join('\n') + '\n');
  return 0;
}

/**
 * The printed line of a candidate, or undefined when the value is not a plain token. The
 * shells treat values as words to insert, and bash's compgen would even expand them: only
 * plain tokens (what aliases, uuids and profile names are) ever leave here. A description
 * is shown, never inserted or evaluated; it still loses control characters and tabs.
 */
export function candidateLine(c: Candidate): string | undefined {
  if (!SAFE_CANDIDATE.test(c.value)) return undefined;
  let description = clean(c.description ?? '').trim();
  if (description.length > DESCRIPTION_MAX) description = `${description.slice(0, DESCRIPTION_MAX - 1)}…`;
  return description ? `${c.value}\t${description}` : c.value;
}

async function candidates(kind: DynamicKind, context: string | undefined, ctx: Context): Promise<string[]> {
  const config = ConfigStore.open(ctx.env);
  const profileData = config.profile(ctx.globals.profile);
  if (kind === 'profiles') return Object.keys(config.profiles()).sort();

  const baseUrl = ctx.globals.baseUrl ?? profileData.base_url;
  const sandbox = ctx.globals.sandbox || baseUrl === 'sandbox';
  if (!sandbox && !baseUrl) return [];
  const key = ctx.env.CARRENTAL_API_KEY || profileData.api_key || '';
  if (kind === 'extras' && !context) return [];
  if (kind !== 'cars' && kind !== 'extras' && !sandbox && !key) return [];

  // the key itself never lands in the cache file, only a digest telling whose answers these are
  const cacheKey = [kind, ctx.globals.profile, sandbox ? 'sandbox' : baseUrl, createHash('sha256').update(key).digest('hex').slice(0, 16), kind === 'extras' ? context : ''].join(' ');
  const cachePath = join(stateDir(ctx.env), CACHE_FILE);
  const now = ctx.now().getTime();
  const cache = readCache(cachePath);
  const hit = cache[cacheKey];
  if (hit && hit.at <= now && now - hit.at < CACHE_TTL_MS) return hit.items;

  const found = await withDeadline(ctx, (quiet) => fetchCandidates(kind, context ?? '', quiet, config));
  if (found === undefined) return [];
  const items = found.map(candidateLine).filter((line): line is string => line !== undefined);
  for (const [k, entry] of Object.entries(cache)) if (!(entry.at <= now && now - entry.at < CACHE_TTL_MS)) delete cache[k];
  cache[cacheKey] = { at: now, items };
  writeCache(cachePath, cache);
  return items;
}

/**
 * Runs `work` with a context that cannot prompt or write to stderr and is aborted after
 * DEADLINE_MS; resolves undefined on any failure or when the deadline passes. Whatever
 * `work` opened (the client, the sandbox) is closed before this returns, even if it was
 * opened after the deadline.
 */
async function withDeadline<T>(ctx: Context, work: (quiet: Context) => Promise<T>): Promise<T | undefined> {
  const controller = new AbortController();
  const signal = AbortSignal.any([ctx.signal, controller.signal]);
  const cleanups: Array<() => unknown> = [];
  let finished = false;
  const runCleanup = async (fn: () => unknown) => {
    try {
      await fn();
    } catch {
      // nothing to report from a completion
    }
  };
  const quiet: Context = {
    ...ctx,
    io: { ...ctx.io, stderr: new Writable({ write: (_chunk, _enc, cb) => cb() }) },
    globals: { ...ctx.globals, json: false, debug: false, input: false, color: false, timeoutMs: DEADLINE_MS },
    signal,
    canPrompt: () => false,
    onCleanup: (fn) => {
      if (finished) void runCleanup(fn);
      else cleanups.push(fn);
    },
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(undefined);
    }, DEADLINE_MS);
  });
  try {
    return await Promise.race([work(quiet).catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
    controller.abort();
    finished = true;
    for (const fn of cleanups.reverse()) await runCleanup(fn);
  }
}

async function fetchCandidates(kind: DynamicKind, context: string, ctx: Context, config: ConfigStore): Promise<Candidate[]> {
  const target = await resolveTarget(ctx, config);
  const api = new Api(makeClient(ctx, target, new Output(ctx)), `carrental/${ctx.version}`);
  if (kind === 'cars') {
    const page = await fetchAll({}, (q) => api.listCars(q, { retry: NO_RETRY }).then((r) => r.data));
    return page.cars.map((c) => ({ value: c.car_alias }));
  }
  if (kind === 'extras') {
    const car = (await api.getCar(context, { retry: NO_RETRY })).data;
    // every member of an extra is optional in the spec: offer those with a type, describe what is known
    return (car.prices.extras ?? []).flatMap((e) =>
      e.item_type === undefined
        ? []
        : [{ value: e.item_type, description: [e.title, e.price_day === undefined ? undefined : `${formatCents(e.price_day)}/day`].filter(Boolean).join(', ') }],
    );
  }
  if (!target.apiKey) return [];
  const read = <T>(path: string, envelope = true) => api.client.request({ method: 'GET', path, auth: 'key', envelope, retry: NO_RETRY }).then((r) => r.data as T);
  const trips = await read<{ active?: unknown; history?: unknown }>('/my/trips');
  const reservations = [...asArray(trips.active), ...asArray(trips.history)].filter(isTrip);
  const invoicesOf = (list: TripShape[]) =>
    Promise.all(list.slice(0, INVOICE_LOOKUPS).map((r) => read<unknown>(`/my/reservation/${encodeURIComponent(r.uuid)}/invoices`, false).then(asArray, () => [])));
  const now = ctx.now();

  if (kind === 'reservations') return reservations.map((r) => ({ value: r.uuid, description: describeTrip(r) }));
  if (kind === 'cancellable') {
    // what DELETE accepts: a `new` reservation whose trip has not started (car-local time)
    return reservations.filter((r) => r.status === 'new' && !started(r, now)).map((r) => ({ value: r.uuid, description: describeTrip(r) }));
  }
  if (kind === 'payable') {
    // what payment-link accepts: not cancelled, and rent (the balance) or a deposit is due
    const open = reservations.filter((r) => r.status !== 'cancelled');
    const lists = await invoicesOf(open);
    return open.flatMap((r, i) => {
      const deposit = asArray(lists[i]).filter(isInvoice).find((inv) => inv.type === 'DEPOSIT' && inv.billing_status === 'ISSUED');
      if (!(r.balance_cents > 0) && !deposit) return [];
      return [{ value: r.uuid, description: describeTrip(r, deposit?.amount) }];
    });
  }
  // invoices: the trips list carries none (detail only), so the first reservations' lists are read
  const lists = await invoicesOf(reservations);
  const seen = new Set<string>();
  return lists
    .flat()
    .filter(isInvoice)
    .filter((inv) => !seen.has(inv.id) && seen.add(inv.id))
    .map((inv) => ({ value: inv.id, description: `${inv.type} ${formatCents(inv.amount)} ${inv.billing_status}` }));
}

interface TripShape {
  uuid: string;
  status?: string;
  date_checkin?: string;
  date_checkout?: string;
  balance_cents: number;
  car?: { name?: string; city?: string };
}

interface InvoiceShape {
  id: string;
  type: string;
  amount: number;
  billing_status: string;
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isTrip = (v: unknown): v is TripShape => isObject(v) && typeof v.uuid === 'string' && Number.isInteger(v.balance_cents);
const isInvoice = (v: unknown): v is InvoiceShape =>
  isObject(v) && typeof v.id === 'string' && typeof v.type === 'string' && Number.isInteger(v.amount) && typeof v.billing_status === 'string';

/** "Toyota Camry 2020, 2026-12-01 10:00 → 2026-12-04 10:00, $185.00 due" (car-local dates). */
export function describeTrip(r: TripShape, depositDue?: number): string {
  const dates = r.date_checkin && r.date_checkout ? `${r.date_checkin.replace('T', ' ')} → ${r.date_checkout.replace('T', ' ')}` : undefined;
  const due = r.balance_cents > 0 ? `${formatCents(r.balance_cents)} due` : 'nothing due';
  const parts = [r.car?.name, dates, depositDue ? `${due}, deposit ${formatCents(depositDue)} due` : due];
  if (r.status && r.status !== 'new') parts.push(r.status);
  return parts.filter(Boolean).join(', ');
}

/** Has the trip begun, by the wall clock of the car's city? Unknown zone: assume not. */
function started(r: TripShape, now: Date): boolean {
  const zone = zoneOf(r.car?.city);
  if (!zone || !r.date_checkin) return false;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const localNow = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
  return localNow >= r.date_checkin;
}

function readCache(path: string): Record<string, CacheEntry> {
  try {
    // a FIFO or device there is no cache (readRegularFileSync refuses it without blocking)
    const parsed = JSON.parse(readRegularFileSync(path, 'the completion cache') ?? '{}') as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out: Record<string, CacheEntry> = {};
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
      const e = v as Partial<CacheEntry>;
      if (typeof e?.at === 'number' && Array.isArray(e.items) && e.items.every((i) => typeof i === 'string')) out[k] = { at: e.at, items: e.items };
    }
    return out;
  } catch {
    return {};
  }
}

function writeCache(path: string, cache: Record<string, CacheEntry>): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // whole or nothing: two completions at once, or one killed mid-write, never leave a torn
    // file. No fsync: after a power cut a lost cache costs one slower Tab, and a Tab must be quick.
    writeFileAtomicSync(path, JSON.stringify(cache), { mode: 0o600, fsync: false });
  } catch {
    // a cache that cannot be written only makes the next completion slower
  }
}
