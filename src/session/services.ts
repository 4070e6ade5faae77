// Builds what a command needs from the context: the config store, the target (remote
// base URL or the embedded sandbox, which embedded-sandbox.ts starts), the key, and the API client. Imported only by
// commands, so none of this loads for --help.
import { ApiClient, insecureKeyTransport, keySafeOver, type RequestSpec } from '../api/client.js';
import { proxySettings } from '../api/proxy.js';
import { Api } from '../api/endpoints.js';
import { CliError, usageError } from '../errors.js';
import { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { ConfigStore, checkSettingValue, type ProfileData } from '../store/config.js';
import { Spinner } from '../render/spinner.js';
import type { Context } from './context.js';
import { startEmbeddedSandbox, type EmbeddedLinks } from './embedded-sandbox.js';

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
/** `--profile nosuch`: says so, and names the profiles there are. */
export function noSuchProfile(name: string, config: ConfigStore): CliError {
  const names = Object.keys(config.profiles()).sort();
  return usageError(
    `profile "${name}" does not exist${names.length ? ` (profiles: ${names.join(', ')})` : ''}`,
    `create it with \`carrental config set base_url <url> --profile ${name}\` or \`carrental auth login --profile ${name}\``,
  );
}

/** What a command asks of its services: `dryRun`, an embedded sandbox that writes nothing. */
export interface ServiceOptions {
  dryRun?: boolean;
}

/** Resolves base URL and key: flags, then environment, then the profile; the sandbox when asked. */
export async function resolveTarget(ctx: Context, config: ConfigStore, opts: ServiceOptions = {}): Promise<Target> {
  const { globals, env } = ctx;
  const profileData = config.profile(globals.profile);
  const configured = globals.baseUrl ?? profileData.base_url;
  const envKey = env.CARRENTAL_API_KEY || undefined;
  if (globals.sandbox || configured === 'sandbox') {
    const { running, embedded } = await startEmbeddedSandbox(env, ctx.onCleanup, { dryRun: opts.dryRun });
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
      embedded,
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

/**
 * Everything a command that talks to the API needs, built once per command run: the first
 * call's options hold for the run, so a dry run asks with `dryRun` before anything else does.
 */
export function services(ctx: Context, opts: ServiceOptions = {}): Promise<Services> {
  let pending = cache.get(ctx);
  if (!pending) {
    pending = (async () => {
      const out = output(ctx);
      const config = openConfig(ctx);
      const target = await resolveTarget(ctx, config, opts);
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
