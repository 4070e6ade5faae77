// The clock of a served sandbox (`carrental sandbox serve`), asked for before a date is
// checked. A sandbox's clock can be moved (`sandbox clock advance 40d`), and then its
// "tomorrow" and its past are not this machine's: a date the machine calls future would be
// refused by the sandbox after the request, and `tomorrow` would name the sandbox's past.
//
// Why a probe, and why only on loopback: the check of a past date must happen before any
// API request, so a clock carried on the answers (a header) comes too late; the sandbox
// already serves its clock at /__sandbox/clock (src/sandbox/admin.ts), and a served sandbox
// listens on 127.0.0.1 only. So for a plain-http loopback base URL, and only when a date is
// to be read, one GET with a short timeout asks it; an answer that is not a sandbox clock
// (a 404 from another local server, a timeout, a refused connection) means this machine's
// clock. A real API (never plain-http loopback) gets no extra request, and the API key is
// never sent with the probe.
import { isLoopbackHost } from '../api/loopback.js';

/** Long enough for a loopback answer on a busy machine, short enough not to be felt. */
export const PROBE_TIMEOUT_MS = 300;

// per target (so per command run): an in-process test moves the clock between two runs
const offsets = new WeakMap<object, Promise<number | undefined>>();

/** The origin of a served sandbox's admin endpoints, if `baseUrl` could be one. */
export function probeOrigin(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' && isLoopbackHost(url.hostname) ? url.origin : undefined;
}

/**
 * The served sandbox's clock minus this machine's, in ms; undefined when the base URL is
 * not loopback or what answers there is not a carrental sandbox. Asked once per target
 * (the offset, not the instant, is kept, so time still runs).
 */
export function sandboxClockOffset(target: { baseUrl: string }, signal?: AbortSignal, debug?: (line: string) => void): Promise<number | undefined> {
  const origin = probeOrigin(target.baseUrl);
  if (!origin) return Promise.resolve(undefined);
  let offset = offsets.get(target);
  if (!offset) {
    // --debug shows every request, this one too
    debug?.(`> GET ${origin}/__sandbox/clock`);
    offset = askClock(origin, signal).then((ms) => {
      debug?.(ms === undefined ? "* not a sandbox: dates are read on this machine's clock" : `* a sandbox: dates are read on its clock, ${new Date(Date.now() + ms).toISOString()}`);
      return ms;
    });
    offsets.set(target, offset);
  }
  return offset;
}

async function askClock(origin: string, signal?: AbortSignal): Promise<number | undefined> {
  // node:http, not the API client: no key, no retries, no envelope; loaded only when asked
  const { request } = await import('node:http');
  return new Promise((settle) => {
    const sent = Date.now();
    // the whole exchange, not only an idle socket, within the time
    const timer = setTimeout(() => req.destroy(), PROBE_TIMEOUT_MS);
    const resolve = (offset: number | undefined) => {
      clearTimeout(timer);
      settle(offset);
    };
    let answered = false;
    const req = request(`${origin}/__sandbox/clock`, { method: 'GET', headers: { accept: 'application/json' }, agent: false, signal }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        // a clock is a few hundred bytes; anything much bigger is not one
        if (size > 16_384) req.destroy();
        else chunks.push(c);
      });
      res.on('end', () => {
        const now = res.statusCode === 200 ? clockInstant(Buffer.concat(chunks).toString('utf8')) : undefined;
        // the answer was made between sending and receiving: its middle is the best guess
        resolve(now === undefined ? undefined : now - (sent + Date.now()) / 2);
      });
      res.on('error', () => resolve(undefined));
      res.on('close', () => resolve(undefined)); // after 'end', or cut short
    });
    req.on('error', () => resolve(undefined));
    req.on('close', () => answered || resolve(undefined));
    req.end();
  });
}

/** The instant in a sandbox's clock answer ({ now, offset_ms, local }), else undefined. */
function clockInstant(text: string): number | undefined {
  try {
    const body = JSON.parse(text) as { now?: unknown; offset_ms?: unknown };
    if (typeof body.now !== 'string' || typeof body.offset_ms !== 'number') return undefined;
    const ms = Date.parse(body.now);
    return Number.isNaN(ms) ? undefined : ms;
  } catch {
    return undefined;
  }
}
