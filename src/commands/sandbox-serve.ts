// `carrental sandbox serve`: the embedded sandbox as a long-running server on 127.0.0.1,
// for other clients and for tests. It prints where it listens and the demo keys (fixture
// keys of the sandbox's own demo customers, not secrets), then runs until SIGINT or
// SIGTERM and closes cleanly with exit 0.
import { resolve } from 'node:path';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';
import { sandboxPort, sandboxStatePath } from '../session/embedded-sandbox.js';
import { CliError } from '../errors.js';
import { parseIntOption } from '../input/parse.js';

export type ServeInput = InputOf<'sandbox serve'>;

/** Budgets so high they never bind: for load tests and benchmarks. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** Resolves on Ctrl-C (the context's signal) or SIGTERM, whichever comes first. */
function untilStopped(signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal.aborted) return done();
    const stop = () => {
      process.off('SIGTERM', stop);
      signal.removeEventListener('abort', stop);
      done();
    };
    process.on('SIGTERM', stop);
    signal.addEventListener('abort', stop);
  });
}

export async function run(input: ServeInput, ctx: Context): Promise<number> {
  const port = parseIntOption(input.port, '--port', { min: 0, max: 65_535 }) ?? sandboxPort(ctx.env);
  const fleetSize = parseIntOption(input.fleetSize, '--fleet-size', { min: 1, max: 100_000 });
  const seed = parseIntOption(input.seed, '--seed', { min: 0 });
  const statePath = input.state ? resolve(input.state) : sandboxStatePath(ctx.env);
  const out = output(ctx);

  const { startSandbox } = await import('../sandbox/index.js');
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      statePath,
      env: ctx.env,
      port,
      reset: input.reset === true,
      // a long-running server checks every record once, so damage is reported at start
      verify: true,
      seed,
      fleetSize,
      config:
        input.rateLimit === false
          ? { catalogRateLimitPerMinute: UNLIMITED, generalRateLimitPerMinute: UNLIMITED, keyRateLimitPerMinute: UNLIMITED }
          : undefined,
      // The request log costs CPU per request even when stderr is discarded, so it is off
      // unless asked for or someone watches a terminal. The sandbox writes to the process's
      // stderr: only when that is where our stderr goes.
      quiet: ctx.io.stderr !== process.stderr || !(input.log ?? ctx.io.stderr.isTTY === true),
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      throw new CliError('api', `port ${port} is already in use`, { hint: 'choose another with --port, or --port 0 for a free one' });
    }
    if (code === 'EACCES') throw new CliError('api', `not allowed to listen on port ${port}`, { hint: 'use a port above 1023' });
    if ((err as Error).name === 'StateFileError') {
      // one line, the remedy this command has (a file seeded with another --seed or
      // --fleet-size too); a refusal with its own remedy (another process has it open) keeps it
      const e = err as Error & { reason: string; remedy: string };
      const remedy = e.remedy.includes('sandbox reset') ? 'start it with --reset to discard the state, or point --state at another file' : e.remedy;
      throw new CliError('api', `sandbox state file ${statePath}: ${e.reason}; ${remedy}`);
    }
    if ((err as Error).name === 'StateWriteError') throw new CliError('api', (err as Error).message);
    throw new CliError('api', `the sandbox could not start: ${(err as Error).message}`);
  }
  ctx.onCleanup(() => sandbox.close());
  if (sandbox.store === 'json') {
    // 3,000: MAX_RESERVATIONS of src/sandbox/json-store.ts (written out: this module loads no store; the test compares the two)
    out.info(`note: on Node ${process.versions.node} the sandbox keeps its state as one JSON document, written whole on each change: everything works up to 3,000 reservations (then a new booking is refused; \`carrental sandbox reset -y\` starts afresh). Node 22.13 or later keeps it in an SQLite database instead (one row per change, no such bound, rate limits shared between processes, readable with sqlite3).`);
  }

  const info = { base_url: sandbox.baseUrl, app_url: sandbox.appUrl, keys: sandbox.keys };
  // the sandbox's own demo keys are fixtures, printed whole for the scripts and people that
  // read them, even when CARRENTAL_API_KEY holds one (a CI job that starts a second sandbox)
  ctx.showWhole?.(Object.values(sandbox.keys));
  if (ctx.globals.json) {
    // exactly one line, whatever the terminal: a parent process reads it to find the port
    out.line(JSON.stringify(info));
  } else {
    out.pairs([
      ['Base URL', sandbox.baseUrl],
      ['App URL', sandbox.appUrl],
      ['State', statePath],
      ...Object.entries(sandbox.keys).map(([name, key]): [string, string] => [`Key ${name}`, key]),
    ]);
    out.info(`\nTry: carrental --base-url ${sandbox.baseUrl} cars --city la`);
    out.info(`     CARRENTAL_API_KEY=${sandbox.keys.booking_write} carrental --base-url ${sandbox.baseUrl} trips`);
    out.info('The sandbox runs until Ctrl-C.');
  }

  await untilStopped(ctx.signal);
  await sandbox.close();
  if (!ctx.globals.json) out.info('sandbox stopped');
  return 0;
}
