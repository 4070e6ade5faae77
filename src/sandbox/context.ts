// What every request handler of the sandbox (API, admin, customer pages) works with.
import { randomUUID } from 'node:crypto';
import type { SandboxConfig } from './config.js';
import type { FaultRegistry } from './faults.js';
import { type Fleet, buildFleet } from './fleet.js';
import type { InflightRegistry } from './idempotency.js';
import type { RateLimiter } from './ratelimit.js';
import type { RuleEnv } from './facts.js';
import { type SandboxState, anchorDay } from './state.js';
import type { Store } from './store.js';

export interface RequestLogEntry {
  /** ISO 8601 UTC (kept as milliseconds until asked for: see RequestLog). */
  at: string;
  request_id: string;
  method: string;
  path: string;
  operation: string | null;
  /** HTTP status, or null when the connection was dropped on purpose. */
  status: number | null;
  /** Which credential headers were sent (never their values). */
  credentials: 'none' | 'authorization' | 'x-api-key' | 'both';
  idempotency_key: string | null;
  agent_client: string | null;
  replayed: boolean;
  duration_ms: number;
}

export interface SandboxContext {
  readonly store: Store;
  /** Live configuration; PATCH /__sandbox/config changes it in place. */
  readonly config: SandboxConfig;
  readonly faults: FaultRegistry;
  readonly rateLimiter: RateLimiter;
  readonly inflight: InflightRegistry;
  readonly requestLog: RequestLog;
  readonly quiet: boolean;
  /** Set once the server listens: http://127.0.0.1:PORT/v1, /app, /__sandbox. */
  baseUrl: string;
  appUrl: string;
  adminUrl: string;
  /**
   * Said on every done page when set: a CLI command's embedded sandbox serves its pages only
   * for a while, and the visitor is told when they close (RunningSandbox.setDonePageNotice).
   */
  donePageNotice?: string;
  /** The sandbox clock: the base clock plus the offset stored in the state. */
  now(state?: SandboxState): Date;
  /** Everything the rules need, at this instant. */
  env(state?: SandboxState): RuleEnv;
}

export function fleetOf(state: SandboxState): Fleet {
  return buildFleet(state.seed, anchorDay(state), state.fleetSize);
}

export const REQUEST_LOG_LIMIT = 500;

/** A logged request before it is shown: `at` stays a number, formatted when the log is read. */
export type PendingLogEntry = Omit<RequestLogEntry, 'at'> & { at: number };

/**
 * The last REQUEST_LOG_LIMIT API requests (`/__sandbox/requests`). Written on every request
 * and read rarely, so writing is cheap: old entries are dropped in batches, not one per
 * request, and the time is formatted only when the log is read.
 */
export class RequestLog {
  private items: PendingLogEntry[] = [];

  push(entry: PendingLogEntry): void {
    this.items.push(entry);
    if (this.items.length >= 2 * REQUEST_LOG_LIMIT) this.items = this.items.slice(-REQUEST_LOG_LIMIT);
  }

  /** Oldest first, at most REQUEST_LOG_LIMIT. */
  entries(): RequestLogEntry[] {
    return this.items.slice(-REQUEST_LOG_LIMIT).map((e) => ({ ...e, at: new Date(e.at).toISOString() }));
  }

  clear(): void {
    this.items = [];
  }
}

export function createContext(parts: {
  store: Store;
  config: SandboxConfig;
  faults: FaultRegistry;
  rateLimiter: RateLimiter;
  inflight: InflightRegistry;
  baseClock: () => Date;
  quiet: boolean;
}): SandboxContext {
  const ctx: SandboxContext = {
    store: parts.store,
    config: parts.config,
    faults: parts.faults,
    rateLimiter: parts.rateLimiter,
    inflight: parts.inflight,
    requestLog: new RequestLog(),
    quiet: parts.quiet,
    baseUrl: '',
    appUrl: '',
    adminUrl: '',
    now: (state = parts.store.read()) => new Date(parts.baseClock().getTime() + state.clockOffsetMs),
    env: (state = parts.store.read()) => ({
      now: ctx.now(state),
      newId: randomUUID,
      config: ctx.config,
      fleet: fleetOf(state),
      anchorDay: anchorDay(state),
    }),
  };
  return ctx;
}
