// The embedded sandbox of a command (`--sandbox`, or a profile whose base URL is
// `sandbox`): where it keeps its state, which port it serves, who serves the pages its
// links point at, and how a command words that next to a link.
import { join, resolve } from 'node:path';
import { CliError, usageError } from '../errors.js';
import { dataDir } from '../store/paths.js';
import { clean } from '../text/sanitize.js';

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

/**
 * The sandbox store's own errors (src/sandbox/store.ts), each one line naming the file and
 * what to do, as the CLI's: a busy file is worth a rerun, anything else is not.
 */
export function stateError(err: Error): Error {
  if (err.name === 'StateBusyError') return new CliError('unavailable', err.message);
  if (err.name === 'StateFileError' || err.name === 'StateWriteError') return new CliError('api', err.message);
  return err;
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
export function sandboxLinkNote(target: { embedded?: EmbeddedLinks }, mode: 'wait' | 'can-wait' | 'no-wait' = 'no-wait'): { note?: string; warning?: string } {
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

export function sandboxStatePath(env: NodeJS.ProcessEnv): string {
  return env.CARRENTAL_SANDBOX_STATE || join(dataDir(env), 'sandbox-state.json');
}

/**
 * Starts this command's sandbox (stopped by `onCleanup`), on the stable port when it is free:
 * the running server, and who serves the pages its links point at. A `dryRun` writes nothing
 * (issue 35): the state is read where it is, its changes kept in memory (a fresh seeded one
 * when there is no file yet, whose folder is not created), and it listens on a port of its
 * own, as it makes no link. The sandbox's clock, config and faults come from `env`.
 */
export async function startEmbeddedSandbox(env: NodeJS.ProcessEnv, onCleanup: (fn: () => void | Promise<void>) => void, opts: { dryRun?: boolean } = {}) {
  const sandbox = await import('../sandbox/index.js');
  const stablePort = opts.dryRun ? 0 : sandboxPort(env);
  const start = (port: number, appOrigin?: string) =>
    sandbox.startSandbox({ statePath: sandboxStatePath(env), quiet: true, port, appOrigin, snapshot: opts.dryRun, env }).catch((err: Error) => {
      throw stateError(err);
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
  onCleanup(() => running.close());
  const embedded: EmbeddedLinks = { stablePort, links, linkPort: Number(new URL(running.appUrl).port), stableTakenBy, setDonePageNotice: running.setDonePageNotice };
  return { running, embedded };
}
