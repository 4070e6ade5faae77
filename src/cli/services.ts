// Builds what a command needs from the context: the config store, the target (remote
// base URL or the embedded sandbox), the key, and the API client. Imported only by
// commands, so none of this loads for --help.
import { join, resolve } from 'node:path';
import { ApiClient, insecureKeyTransport, keySafeOver, type RequestSpec } from '../api/client.js';
import { proxySettings } from '../api/proxy.js';
import { Api } from '../api/endpoints.js';
import { CliError, usageError } from '../errors.js';
import { Output } from '../render/output.js';
import { clean } from '../render/sanitize.js';
import { ConfigStore, checkSettingValue, type ProfileData } from '../store/config.js';
import { dataDir } from '../store/paths.js';
import { Spinner } from '../render/spinner.js';
import type { Context } from './context.js';

export interface Target {
  profile: string;
  profileData: ProfileData;
  baseUrl: string;
  appUrl?: string;
  apiKey?: string;
  /** Where the key came from, for `auth status` and `doctor`. */
  keySource?: 'env' | 'profile' | 'sandbox-demo';
  sandbox: boolean;
  /** The embedded sandbox of this command (not `sandbox serve`, not a remote API). */
  embedded?: EmbeddedLinks;
  /** The server's clock, when it is known: the embedded sandbox's (moved by `sandbox clock`). */
  clock?: () => Date;
  /** The key's capability, where the server tells it without a write: the embedded sandbox does, for any of its keys. */
  capability?: 'read_only' | 'booking_write';
}

/**
 * Who serves the pages the embedded sandbox's links point at, so a command never prints a
 * link to a port that serves something else:
 * - `own-stable`: this command, on the stable port (a later `sandbox serve` serves them too);
 * - `shared`: a carrental sandbox already on the stable port with this same state file,
 *   for as long as it runs;
 * - `own`: this command, on a port of its own (no stable port configured, or it is taken by
 *   a program that is not a carrental sandbox on this state file: `stableTakenBy` says which).
 */
export interface EmbeddedLinks {
  stablePort: number;
  links: 'own-stable' | 'shared' | 'own';
  /** The port the links point at. */
  linkPort: number;
  stableTakenBy?: string;
  /** A line the done pages of this command's own server show (when they close). */
  setDonePageNotice(text: string | undefined): void;
}

/** After `pay-link --wait` sees the payment, the page this command serves stays up this long (its done page, "View the trip"). */
export const LINK_GRACE_MS = 10_000;

/**
 * What holds the stable port, from its `/__sandbox` overview: `null` when it is a carrental
 * sandbox on this state file (its pages show our reservations), else a description.
 */
async function stablePortHolder(port: number, statePath: string): Promise<string | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/__sandbox`, { signal: AbortSignal.timeout(1_500) });
    const body = (await res.json()) as { state_path?: unknown; app_url?: unknown };
    if (!res.ok || typeof body.app_url !== 'string') return 'a program that is not a carrental sandbox';
    if (typeof body.state_path === 'string' && resolve(body.state_path) === resolve(statePath)) return null;
    return `a carrental sandbox with another state file (${typeof body.state_path === 'string' ? clean(body.state_path) : 'in memory'})`;
  } catch {
    return 'a program that is not a carrental sandbox';
  }
}

/** The port `sandbox serve` listens on by default and embedded sandbox links point to. */
export const DEFAULT_SANDBOX_PORT = 4780;

export function sandboxPort(env: NodeJS.ProcessEnv): number {
  const text = env.CARRENTAL_SANDBOX_PORT;
  if (text === undefined || text === '') return DEFAULT_SANDBOX_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw usageError(`CARRENTAL_SANDBOX_PORT must be a port number 0..65535, got "${text}"`);
  return port;
}

/**
 * Said with an action link of the embedded sandbox: how long the page is served. `wait`:
 * pay-link --wait, which serves it while it waits and LINK_GRACE_MS after it sees the
 * payment; `can-wait`: pay-link without --wait; `no-wait`: card-link and extend-link, which
 * have no --wait to suggest. `warning` is for a stable port that something else holds.
 */
export function sandboxLinkNote(target: Target, mode: 'wait' | 'can-wait' | 'no-wait' = 'no-wait'): { note?: string; warning?: string } {
  const e = target.embedded;
  if (!e) return {};
  const grace = `, and ${LINK_GRACE_MS / 1000} s after it sees the payment`;
  if (e.links === 'shared') return { note: `The carrental sandbox on port ${e.linkPort} (same state file) serves this page for as long as it runs.` };
  if (e.links === 'own-stable') {
    if (mode === 'wait') return { note: `This command serves the page on port ${e.linkPort} while it waits${grace}.` };
    return {
      note: `The sandbox serves this page only while a carrental sandbox runs on port ${e.linkPort}: keep \`carrental sandbox serve\` running in another terminal${mode === 'can-wait' ? ' (or use --wait)' : ''} before opening it.`,
    };
  }
  const serve =
    e.stablePort === 0
      ? 'set CARRENTAL_SANDBOX_PORT to a free port, run `carrental sandbox serve` in another terminal and ask for the link again'
      : `free port ${e.stablePort} (or set CARRENTAL_SANDBOX_PORT to a free port), run \`carrental sandbox serve\` in another terminal and ask for the link again`;
  const served =
    mode === 'wait'
      ? `this command serves it while it waits${grace}`
      : `this command serves it only until it exits, which is now: ${mode === 'can-wait' ? 'use --wait to keep it served, or ' : ''}${serve}`;
  return e.stableTakenBy
    ? { warning: `port ${e.stablePort} is taken by ${e.stableTakenBy}, so this link points at port ${e.linkPort}: ${served}.` }
    : { note: `This link points at port ${e.linkPort}: ${served}.` };
}

export interface Services {
  config: ConfigStore;
  target: Target;
  client: ApiClient;
  api: Api;
  out: Output;
}

const cache = new WeakMap<Context, Promise<Services>>();

export function output(ctx: Context): Output {
  const out = new Output(ctx);
  out.setSecrets([ctx.env.CARRENTAL_API_KEY]);
  return out;
}

export function openConfig(ctx: Context): ConfigStore {
  const config = ConfigStore.open(ctx.env);
  const warning = config.permissionWarning();
  if (warning) ctx.io.stderr.write(`warning: ${warning}\n`);
  return config;
}

/**
 * The embedded sandbox's state file: CARRENTAL_SANDBOX_STATE, else the user's data directory.
 * Read from the command's own environment, so an in-process test stays inside its temp home.
 */
export function sandboxStatePath(env: NodeJS.ProcessEnv): string {
  return env.CARRENTAL_SANDBOX_STATE || join(dataDir(env), 'sandbox-state.json');
}

/** `--profile nosuch`: says so, and names the profiles there are. */
export function noSuchProfile(name: string, config: ConfigStore): CliError {
  const names = Object.keys(config.profiles()).sort();
  return usageError(
    `profile "${name}" does not exist${names.length ? ` (profiles: ${names.join(', ')})` : ''}`,
    `create it with \`carrental config set base_url <url> --profile ${name}\` or \`carrental auth login --profile ${name}\``,
  );
}

/** Resolves base URL and key: flags, then environment, then the profile; the sandbox when asked. */
export async function resolveTarget(ctx: Context, config: ConfigStore): Promise<Target> {
  const { globals, env } = ctx;
  const profileData = config.profile(globals.profile);
  const configured = globals.baseUrl ?? profileData.base_url;
  const envKey = env.CARRENTAL_API_KEY || undefined;
  if (globals.sandbox || configured === 'sandbox') {
    const sandbox = await import('../sandbox/index.js');
    const stablePort = sandboxPort(env);
    const start = (port: number, appOrigin?: string) =>
      sandbox.startSandbox({ statePath: sandboxStatePath(env), quiet: true, port, appOrigin }).catch((err: Error) => {
        if (err.name === 'StateFileError') {
          throw new CliError('api', err.message, { hint: 'run `carrental sandbox reset` to discard it and start from the seeded fixtures' });
        }
        throw err;
      });
    // Links should outlive this command: they point at the stable port, which this process
    // serves while it runs and `carrental sandbox serve` serves for as long as it is left on.
    // When something else holds that port, links point there only if it is a carrental
    // sandbox on this state file; otherwise at this command's own port (and it says so).
    let running: Awaited<ReturnType<typeof start>>;
    let links: EmbeddedLinks['links'] = 'own';
    let stableTakenBy: string | undefined;
    if (stablePort === 0) {
      running = await start(0);
    } else {
      try {
        running = await start(stablePort);
        links = 'own-stable';
      } catch (err) {
        if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
        const holder = await stablePortHolder(stablePort, sandboxStatePath(env));
        if (holder === null) {
          running = await start(0, `http://127.0.0.1:${stablePort}`);
          links = 'shared';
        } else {
          running = await start(0);
          stableTakenBy = holder;
        }
      }
    }
    ctx.onCleanup(() => running.close());
    // a profile's key belongs to the API its base URL names; only a sandbox profile's key is sent here
    const profileKey = profileData.base_url === 'sandbox' ? profileData.api_key : undefined;
    const apiKey = envKey ?? profileKey ?? running.keys.booking_write;
    return {
      profile: globals.profile,
      profileData,
      baseUrl: running.baseUrl,
      appUrl: running.appUrl,
      apiKey,
      keySource: envKey ? 'env' : profileKey ? 'profile' : 'sandbox-demo',
      capability: running.keyCapability(apiKey),
      sandbox: true,
      clock: () => running.now(),
      embedded: { stablePort, links, linkPort: Number(new URL(running.appUrl).port), stableTakenBy, setDonePageNotice: running.setDonePageNotice },
    };
  }
  if (!configured) {
    // a mistyped --profile is the likelier cause than a profile left unconfigured
    if (globals.profile !== 'default' && !Object.hasOwn(config.profiles(), globals.profile)) throw noSuchProfile(globals.profile, config);
    throw usageError(
      `no API base URL for profile "${globals.profile}"`,
      'set one with `carrental config set base_url https://<host>/v1` (or --base-url, CARRENTAL_BASE_URL), or try the embedded sandbox: `carrental --sandbox cars`',
    );
  }
  const baseUrl = checkSettingValue('base_url', configured);
  return {
    profile: globals.profile,
    profileData,
    baseUrl,
    appUrl: profileData.app_url,
    apiKey: envKey ?? profileData.api_key,
    keySource: envKey ? 'env' : profileData.api_key ? 'profile' : undefined,
    sandbox: false,
  };
}

/** The default cap on one response body; CARRENTAL_MAX_RESPONSE_BYTES changes it. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const MAX_RESPONSE_BYTES_LIMIT = 1024 * 1024 * 1024;

export function maxResponseBytes(env: NodeJS.ProcessEnv): number {
  const text = env.CARRENTAL_MAX_RESPONSE_BYTES;
  if (text === undefined || text === '') return DEFAULT_MAX_RESPONSE_BYTES;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < 1024 || n > MAX_RESPONSE_BYTES_LIMIT) {
    throw usageError(`CARRENTAL_MAX_RESPONSE_BYTES must be a whole number of bytes 1024..${MAX_RESPONSE_BYTES_LIMIT}, got "${clean(text)}"`);
  }
  return n;
}

export function makeClient(ctx: Context, target: { baseUrl: string; apiKey?: string }, out: Output): ApiClient {
  // before the key goes anywhere: errors mask it from now on, and an argument holding it is refused
  ctx.activeKey?.(target.apiKey);
  const onRetry: RequestSpec<unknown>['onRetry'] = ({ attempt, maxAttempts, delayMs, failure }) => {
    const why =
      failure.kind === 'status'
        ? `HTTP ${failure.status}${failure.errorCode ? ` ${failure.errorCode}` : ''}`
        : failure.timedOut
          ? 'timed out'
          : `connection failed${failure.code ? ` (${failure.code})` : ''}`;
    out.progress(`${why}: retrying in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1} of ${maxAttempts})`);
  };
  const spinner = out.redraws && !ctx.globals.debug ? new Spinner(out) : undefined;
  const client = new ApiClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    timeoutMs: ctx.globals.timeoutMs,
    userAgent: `carrental/${ctx.version} node/${process.versions.node}`,
    signal: ctx.signal,
    sleep: ctx.sleep,
    debug: ctx.globals.debug ? (line) => ctx.io.stderr.write(`${line}\n`) : undefined,
    onRetry,
    maxResponseBytes: maxResponseBytes(ctx.env),
    proxy: proxySettings(ctx.env),
    // a spinner for a slow request, on a terminal; not between --debug's trace lines
    onRequest: spinner && ((label) => spinner.start(label)),
  });
  ctx.onCleanup(() => client.close());
  return client;
}

/** Everything a command that talks to the API needs, built once per command run. */
export function services(ctx: Context): Promise<Services> {
  let pending = cache.get(ctx);
  if (!pending) {
    pending = (async () => {
      const out = output(ctx);
      const config = openConfig(ctx);
      const target = await resolveTarget(ctx, config);
      out.setSecrets([target.apiKey]);
      const client = makeClient(ctx, target, out);
      return { config, target, client, api: new Api(client, `carrental/${ctx.version}`), out };
    })();
    cache.set(ctx, pending);
  }
  return pending;
}

/**
 * For commands that must have a key before anything is sent (or journaled): a key, and a
 * base URL it may travel to (the client checks that again on every keyed request).
 */
export function requireKey(target: Target): void {
  if (!target.apiKey) {
    throw new CliError('auth', `no API key for profile "${target.profile}"`, {
      hint: 'run `carrental auth login`, set CARRENTAL_API_KEY, or try `carrental --sandbox ...`',
    });
  }
  if (!keySafeOver(target.baseUrl)) throw insecureKeyTransport(target.baseUrl);
}
