// What the `sandbox` control commands (pay, card, extend, clock, fault, keys) share: where
// the sandbox is and one way to call its admin endpoints (/__sandbox/...).
//
// A running `sandbox serve` is found by `--port N` (on 127.0.0.1) or by the global
// `--base-url` (a loopback http URL); without either, the command acts on the embedded
// state file (CARRENTAL_SANDBOX_STATE or the data directory), through a sandbox started in
// this process for the call and stopped after it, so the same endpoints and rules apply.
import type { Context } from '../session/context.js';
import { sandboxStatePath, stateError } from '../session/embedded-sandbox.js';
import { CliError, kindForStatus, usageError } from '../errors.js';
import { parseIntOption } from '../input/parse.js';
import { pick } from '../booking/resolve-id.js';
import type { UuidRef } from '../input/uuid-ref.js';

export interface AdminTarget {
  /** The running server's origin, or null for the embedded state. */
  origin: string | null;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * `needsServer`: what exists only inside a running server (faults): then the embedded state
 * is a usage error instead of a silent no-op.
 */
export async function adminTarget(ctx: Context, input: { port?: string }, needsServer?: string): Promise<AdminTarget> {
  const port = parseIntOption(input.port, '--port', { min: 1, max: 65_535 });
  let origin: string | null = null;
  if (port !== undefined) {
    origin = `http://127.0.0.1:${port}`;
  } else if (ctx.globals.baseUrl && ctx.globals.baseUrl !== 'sandbox') {
    let url: URL;
    try {
      url = new URL(ctx.globals.baseUrl);
    } catch {
      throw usageError(`--base-url is not a URL: ${ctx.globals.baseUrl}`);
    }
    if (url.protocol !== 'http:' || !(LOOPBACK.has(url.hostname) || /^127(\.\d{1,3}){3}$/.test(url.hostname))) {
      throw usageError(`${url.origin} is not a local sandbox`, 'the sandbox commands talk to `carrental sandbox serve` on this machine: --base-url http://127.0.0.1:PORT/v1 or --port PORT');
    }
    origin = url.origin;
  }
  if (origin === null && needsServer) {
    throw usageError(`${needsServer} live in a running sandbox, not in its state file`, 'start one with `carrental sandbox serve --port 4780` and pass --port 4780 (or --base-url)');
  }

  let base: string;
  if (origin !== null) {
    base = `${origin}/__sandbox`;
  } else {
    const { startSandbox } = await import('../sandbox/index.js');
    const statePath = sandboxStatePath(ctx.env);
    const sandbox = await startSandbox({ statePath, quiet: true, env: ctx.env }).catch((err: Error) => {
      throw stateError(err);
    });
    ctx.onCleanup(() => sandbox.close());
    base = sandbox.adminUrl;
  }

  return {
    origin,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      let res: Response;
      try {
        res = await fetch(base + path, {
          method,
          // every admin request that changes state must say it is JSON (docs/sandbox.md)
          headers: method === 'GET' ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: ctx.signal,
        });
      } catch (err) {
        if (ctx.signal.aborted) throw new CliError('interrupted', 'interrupted');
        throw new CliError('unavailable', `no sandbox answers at ${origin}`, { hint: 'is `carrental sandbox serve` running on that port?', cause: err });
      }
      const text = await res.text();
      let json: unknown;
      try {
        json = text === '' ? null : JSON.parse(text);
      } catch {
        throw new CliError('api', `${origin ?? 'the sandbox'} answered ${res.status} with a body that is not JSON`);
      }
      if (res.ok) return json as T;
      const e = (json ?? {}) as { error?: string; description?: string; error_code?: string; request_id?: string };
      // A 400 from the admin endpoints is about what this command sent: a usage error.
      const kind = res.status === 400 ? 'usage' : kindForStatus(res.status);
      throw new CliError(kind, e.description ?? e.error ?? `HTTP ${res.status}`, {
        api: { status: res.status, error_code: e.error_code, request_id: e.request_id, description: e.description, body: json },
      });
    },
  };
}

/** The option every control command takes. */
export interface PortInput {
  port?: string;
}

/** A reservation as the sandbox's admin endpoints list it. */
export interface SandboxReservation {
  uuid: string;
  status: string;
  car_alias: string | null;
  city?: string | null;
  date_checkin: string;
  date_checkout: string;
}

/**
 * A reservation of the sandbox, of any of its customers (the control commands act as the
 * customer, whoever it is), by its uuid or by a unique prefix, as every other command takes them.
 */
export async function findReservation(target: AdminTarget, ref: UuidRef, cli: string): Promise<SandboxReservation> {
  const { customers } = await target.call<{ customers: Array<{ id: string }> }>('GET', '/');
  const lists = await Promise.all(customers.map((c) => target.call<{ reservations: SandboxReservation[] }>('GET', `/reservations?customer=${encodeURIComponent(c.id)}`)));
  const all = lists.flatMap((l) => l.reservations);
  const uuid = ref.whole ? ref.text : pick(ref, all.map((r) => ({ uuid: r.uuid, label: `${r.car_alias ?? 'no car'}, ${r.date_checkin.replace('T', ' ')}, ${r.status}` })), 'reservation', cli, 'trips');
  const found = all.find((r) => r.uuid === uuid);
  if (!found) throw new CliError('not_found', `the sandbox has no reservation ${uuid}`);
  return found;
}
