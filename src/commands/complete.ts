// `carrental __complete <kind>` (hidden): completion candidates for the shell scripts, one
// per line. A completion runs on every Tab press, so this must be quick and quiet: answers
// are cached for a minute in the state directory, the whole lookup gives up after 2 s,
// nothing is ever prompted or printed to stderr, and any failure (no base URL, no key, no
// network, a bad answer) prints nothing and exits 0. The sandbox loads only when the
// profile or the flags ask for it, exactly as for any other command.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { NO_RETRY } from '../api/client.js';
import { Api } from '../api/endpoints.js';
import type { DynamicKind } from '../cli/completion-gen.js';
import type { Context } from '../cli/context.js';
import { makeClient, resolveTarget } from '../cli/services.js';
import { Output } from '../render/output.js';
import { ConfigStore } from '../store/config.js';
import { stateDir } from '../store/paths.js';
import { fetchAll } from './cars.js';

export const CACHE_TTL_MS = 60_000;
export const DEADLINE_MS = 2_000;
export const CACHE_FILE = 'completion-cache.json';
/** Reservations whose invoice lists are read for invoice completion: active first, then history. */
const INVOICE_LOOKUPS = 10;

const SAFE_CANDIDATE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const KINDS: readonly DynamicKind[] = ['cars', 'reservations', 'invoices', 'profiles'];

interface CacheEntry {
  at: number;
  items: string[];
}

export async function run(input: { kind?: string }, ctx: Context): Promise<number> {
  const kind = input.kind as DynamicKind;
  if (!KINDS.includes(kind)) return 0;
  let items: string[] = [];
  try {
    items = await candidates(kind, ctx);
  } catch {
    // a completion that fails completes nothing; the user is mid-typing, not asking for errors
  }
  // The shells treat candidates as words to insert, and bash's compgen would even expand
  // them: only plain tokens (what aliases, uuids and profile names are) ever leave here.
  const safe = items.filter((item) => SAFE_CANDIDATE.test(item));
  if (safe.length) ctx.io.stdout.write(safe.join('\n') + '\n');
  return 0;
}

async function candidates(kind: DynamicKind, ctx: Context): Promise<string[]> {
  const config = ConfigStore.open(ctx.env);
  const profileData = config.profile(ctx.globals.profile);
  if (kind === 'profiles') return Object.keys(config.profiles()).sort();

  const baseUrl = ctx.globals.baseUrl ?? profileData.base_url;
  const sandbox = ctx.globals.sandbox || baseUrl === 'sandbox';
  if (!sandbox && !baseUrl) return [];
  const key = ctx.env.CARRENTAL_API_KEY || profileData.api_key || '';
  if (kind !== 'cars' && !sandbox && !key) return [];

  // the key itself never lands in the cache file, only a digest telling whose answers these are
  const cacheKey = [kind, ctx.globals.profile, sandbox ? 'sandbox' : baseUrl, createHash('sha256').update(key).digest('hex').slice(0, 16)].join(' ');
  const cachePath = join(stateDir(ctx.env), CACHE_FILE);
  const now = ctx.now().getTime();
  const cache = readCache(cachePath);
  const hit = cache[cacheKey];
  if (hit && hit.at <= now && now - hit.at < CACHE_TTL_MS) return hit.items;

  const items = await withDeadline(ctx, (quiet) => fetchCandidates(kind, quiet, config));
  if (items === undefined) return [];
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

async function fetchCandidates(kind: DynamicKind, ctx: Context, config: ConfigStore): Promise<string[]> {
  const target = await resolveTarget(ctx, config);
  const api = new Api(makeClient(ctx, target, new Output(ctx)), `carrental/${ctx.version}`);
  if (kind === 'cars') {
    const page = await fetchAll({}, (q) => api.listCars(q, { retry: NO_RETRY }).then((r) => r.data));
    return page.cars.map((c) => c.car_alias);
  }
  if (!target.apiKey) return [];
  const trips = (await api.client.request({ method: 'GET', path: '/my/trips', auth: 'key', retry: NO_RETRY })).data as TripsShape;
  const reservations = [...(trips.active ?? []), ...(trips.history ?? [])].filter((t) => typeof t?.uuid === 'string');
  if (kind === 'reservations') return reservations.map((t) => t.uuid);
  return invoiceIds(api, reservations);
}

interface TripsShape {
  active?: Array<{ uuid: string }>;
  history?: Array<{ uuid: string }>;
}

/** The trips list carries no invoices (detail only), so the first reservations' lists are read. */
async function invoiceIds(api: Api, reservations: Array<{ uuid: string }>): Promise<string[]> {
  const lists = await Promise.all(
    reservations.slice(0, INVOICE_LOOKUPS).map((r) =>
      api.client
        .request({ method: 'GET', path: `/my/reservation/${encodeURIComponent(r.uuid)}/invoices`, auth: 'key', envelope: false, retry: NO_RETRY })
        .then((res) => (Array.isArray(res.data) ? (res.data as Array<{ id?: unknown }>) : []))
        .catch(() => []),
    ),
  );
  const ids = lists.flat().map((i) => i.id).filter((id): id is string => typeof id === 'string');
  return [...new Set(ids)];
}

function readCache(path: string): Record<string, CacheEntry> {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
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
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    // write then rename: two completions at once never leave a torn file behind
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(cache), { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    // a cache that cannot be written only makes the next completion slower
  }
}
