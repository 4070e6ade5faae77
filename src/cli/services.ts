// Builds what a command needs from the context: the config store, the target (remote
// base URL or the embedded sandbox), the key, and the API client. Imported only by
// commands, so none of this loads for --help.
import { join } from 'node:path';
import { ApiClient, type RequestSpec } from '../api/client.js';
import { Api } from '../api/endpoints.js';
import { CliError, usageError } from '../errors.js';
import { Output } from '../render/output.js';
import { ConfigStore, checkSettingValue, type ProfileData } from '../store/config.js';
import { dataDir } from '../store/paths.js';
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
  embedded?: { stablePort: number; ownsStablePort: boolean };
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

/** Said under an action link of the embedded sandbox, whose server stops with the command. */
export function sandboxLinkNote(target: Target): string | undefined {
  if (!target.embedded || target.embedded.stablePort === 0) return undefined;
  return `The sandbox serves this page only while a carrental sandbox runs on port ${target.embedded.stablePort}: keep \`carrental sandbox serve\` running in another terminal (or use --wait) before opening it.`;
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
    // Links must outlive this command: they point at the stable port, which this process
    // serves while it runs and `carrental sandbox serve` serves for as long as it is left on.
    let running: Awaited<ReturnType<typeof start>>;
    let ownsStablePort = false;
    if (stablePort === 0) {
      running = await start(0);
    } else {
      try {
        running = await start(stablePort);
        ownsStablePort = true;
      } catch (err) {
        if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
        running = await start(0, `http://127.0.0.1:${stablePort}`);
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
      sandbox: true,
      embedded: { stablePort, ownsStablePort },
    };
  }
  if (!configured) {
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

export function makeClient(ctx: Context, target: { baseUrl: string; apiKey?: string }, out: Output): ApiClient {
  const onRetry: RequestSpec<unknown>['onRetry'] = ({ attempt, maxAttempts, delayMs, failure }) => {
    const why =
      failure.kind === 'status'
        ? `HTTP ${failure.status}${failure.errorCode ? ` ${failure.errorCode}` : ''}`
        : failure.timedOut
          ? 'timed out'
          : `connection failed${failure.code ? ` (${failure.code})` : ''}`;
    out.progress(`${why}: retrying in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1} of ${maxAttempts})`);
  };
  const client = new ApiClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    timeoutMs: ctx.globals.timeoutMs,
    userAgent: `carrental/${ctx.version} node/${process.versions.node}`,
    signal: ctx.signal,
    sleep: ctx.sleep,
    debug: ctx.globals.debug ? (line) => ctx.io.stderr.write(`${line}\n`) : undefined,
    onRetry,
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

/** For commands that must have a key before anything is sent. */
export function requireKey(target: Target): void {
  if (!target.apiKey) {
    throw new CliError('auth', `no API key for profile "${target.profile}"`, {
      hint: 'run `carrental auth login`, set CARRENTAL_API_KEY, or try `carrental --sandbox ...`',
    });
  }
}
