// The embedded sandbox: a faithful, stateful, strict implementation of the whole API over
// real HTTP on 127.0.0.1. See docs/sandbox.md for its decisions, keys and admin endpoints.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { resolveCredential } from './auth.js';
import { baseClock } from './clock.js';
import { type SandboxConfig, resolveConfig } from './config.js';
import { createContext } from './context.js';
import { type FaultSpec, createFaultRegistry, faultsFromEnv } from './faults.js';
import { type SandboxKeys, sandboxKeys } from './fixtures.js';
import { createInflightRegistry } from './idempotency.js';
import { createRateLimiter } from './ratelimit.js';
import { createRequestListener } from './server.js';
import { openStore } from './store.js';

export type { SandboxConfig } from './config.js';
export type { FaultSpec } from './faults.js';
export type { SandboxKeys, SandboxExtraCredentials } from './fixtures.js';
export { sandboxKeys, sandboxExtraCredentials } from './fixtures.js';
export { StateFileError } from './store.js';

export interface SandboxOptions {
  /** JSON state file; omitted = in memory. */
  statePath?: string;
  /** Default 0 (a free port); the host is always 127.0.0.1. */
  port?: number;
  /** Injectable clock; default: real time, or CARRENTAL_SANDBOX_NOW (an ISO instant where the clock starts, then advancing in real time). */
  now?: () => Date;
  /** Default 1. */
  seed?: number;
  /** Default 300. */
  fleetSize?: number;
  /** Discard existing state file contents and re-seed. */
  reset?: boolean;
  /** Check the whole state file when opening (a long-running server does). */
  verify?: boolean;
  /** Read the state file, never write it or beside it (a `--dry-run`): see StoreOptions.snapshot. */
  snapshot?: boolean;
  /** The store of a state file: default SQLite where node:sqlite exists (Node 22.13+), else the JSON document (tests force either). */
  store?: 'sqlite' | 'json';
  /** Rate budgets, max active reservations, operating hours, promo switch, ... (over CARRENTAL_SANDBOX_CONFIG). */
  config?: Partial<SandboxConfig>;
  /** Faults active from the start (added after those of CARRENTAL_SANDBOX_FAULTS). */
  faults?: FaultSpec[];
  /** No request log on stderr. */
  quiet?: boolean;
  /**
   * Where CARRENTAL_SANDBOX_NOW, CARRENTAL_SANDBOX_CONFIG and CARRENTAL_SANDBOX_FAULTS are
   * read: a command's own environment (default process.env).
   */
  env?: NodeJS.ProcessEnv;
  /**
   * Origin the action links point to, when it differs from this server's (the embedded
   * sandbox of a CLI command links to the stable `sandbox serve` port, whose pages outlive
   * the command).
   */
  appOrigin?: string;
}

export interface RunningSandbox {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** http://127.0.0.1:PORT/app */
  appUrl: string;
  /** http://127.0.0.1:PORT/__sandbox */
  adminUrl: string;
  keys: SandboxKeys;
  /** The sandbox's own clock (real time plus the offset `sandbox clock` set). */
  now(): Date;
  /** What a key may do here (`auth status` says it): undefined for a key the sandbox does not accept. */
  keyCapability(key: string): 'read_only' | 'booking_write' | undefined;
  /** Where the state is kept: an SQLite database, the JSON document of Node 20, or memory. */
  store: 'sqlite' | 'json' | 'memory';
  /** A plain-text line every done page shows from now on (e.g. when its server closes); undefined removes it. */
  setDonePageNotice(text: string | undefined): void;
  close(): Promise<void>;
}

/** `env` defaults to process.env (callers with an injected environment pass theirs). */
export function defaultSandboxStatePath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CARRENTAL_SANDBOX_STATE || join(envPaths('carrental', { suffix: '' }).data, 'sandbox-state.json');
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const env = opts.env ?? process.env;
  const config = resolveConfig(opts.config, env);
  const clock = baseClock(opts.now, env);
  const faults = createFaultRegistry([...faultsFromEnv(env), ...(opts.faults ?? [])]);
  const store = await openStore({ statePath: opts.statePath, reset: opts.reset, seed: opts.seed, fleetSize: opts.fleetSize, now: clock, verify: opts.verify, kind: opts.store, snapshot: opts.snapshot });
  const ctx = createContext({
    store,
    config,
    faults,
    rateLimiter: createRateLimiter((budget) =>
      budget === 'catalog' ? config.catalogRateLimitPerMinute : budget === 'general' ? config.generalRateLimitPerMinute : config.keyRateLimitPerMinute,
      store.sharedCounts,
    ),
    inflight: createInflightRegistry(),
    baseClock: clock,
    quiet: opts.quiet ?? false,
  });
  const server = createServer({ keepAliveTimeout: 5_000 }, createRequestListener(ctx));
  let port: number;
  try {
    port = await listen(server, opts.port ?? 0);
  } catch (err) {
    await store.close();
    throw err;
  }
  const origin = `http://127.0.0.1:${port}`;
  ctx.baseUrl = `${origin}/v1`;
  ctx.appUrl = `${opts.appOrigin ?? origin}/app`;
  ctx.adminUrl = `${origin}/__sandbox`;
  let closing: Promise<void> | null = null;
  return {
    baseUrl: ctx.baseUrl,
    appUrl: ctx.appUrl,
    adminUrl: ctx.adminUrl,
    keys: sandboxKeys(store.read().seed),
    now: () => ctx.now(),
    keyCapability: (key) => {
      const found = resolveCredential(store.read(), { authorization: [`Bearer ${key}`] });
      return found.kind === 'key' ? found.capability : undefined;
    },
    store: store.kind,
    setDonePageNotice: (text) => {
      ctx.donePageNotice = text;
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => store.close())),
  };
}
