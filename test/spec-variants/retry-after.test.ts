// "429 and 503 responses carry Retry-After; the caller waits that long" (spec, Errors), in
// every wait: the request sender's retries, `pay-link --wait` and `trips --watch`. Time is
// virtual: the Context's sleep advances a clock and each request is stamped with it, so a
// test reads exactly how long the CLI waited before it asked again.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import type { Recorded, StubResponse } from '../helpers/stub-server.js';
import { answer, RESERVATION_UUID, resource, startSpecServer } from './spec-server.js';

const R = RESERVATION_UUID;
const KEY = 'svc_retryafter00000000000000000000000000';
const BASE = Date.parse('2027-02-01T12:00:00Z');

let spec: Awaited<ReturnType<typeof startSpecServer>>;
let home: TestHome;
let virtual: number;
let log: Array<{ at: number; key: string; status: number }>;

beforeAll(async () => {
  spec = await startSpecServer();
});
afterAll(() => spec.close());
beforeEach(() => {
  home = new TestHome();
  virtual = 0;
  log = [];
});
afterEach(() => home.cleanup());

const busy = (status: 429 | 503, seconds: number): StubResponse => ({
  status,
  headers: { 'retry-after': String(seconds) },
  json: status === 429 ? { error: 'Too many requests', error_code: 'rate_limited' } : { error: 'Busy', error_code: 'authentication_unavailable' },
});

function trip(payment: 'to_pay' | 'settled', status = 'new') {
  const t = resource('Trip', 'every-optional');
  t.status = status;
  t.payment_status = payment === 'settled' ? { type: 'settled' } : { type: 'to_pay', amount: 5000 };
  return { json: { data: t } };
}

/** Answers the n-th read of the reservation from `reads` (the last one repeats); the rest per the spec. */
function serve(reads: StubResponse[], other: (req: Recorded) => StubResponse | undefined = () => undefined) {
  let n = 0;
  spec.server.handler = (req) => {
    const key = `${req.method} ${req.path}`;
    const res = key === `GET /my/reservation/${R}` ? reads[Math.min(n++, reads.length - 1)] : (other(req) ?? answer(req, 'every-optional'));
    log.push({ at: virtual, key, status: res.status ?? 200 });
    return res;
  };
}

const run = (argv: string[]) =>
  runCommand(['--base-url', spec.baseUrl, ...argv], {
    env: home.env({ CARRENTAL_API_KEY: KEY }),
    now: () => new Date(BASE + virtual),
    sleep: async (ms) => {
      virtual += ms;
    },
  });

const reads = () => log.filter((l) => l.key === `GET /my/reservation/${R}`);

describe('pay-link --wait', () => {
  it('waits the Retry-After of a 429 before reading again, even one longer than the request retries allow', async () => {
    serve([busy(429, 120), trip('settled')]);
    const res = await run(['pay-link', R, '--wait']);
    expect(res.code, res.stderr).toBe(0);
    const [limited, next] = reads();
    expect(limited.status).toBe(429);
    expect(next.at - limited.at).toBeGreaterThanOrEqual(120_000);
  });

  it('waits the Retry-After of a 503 too', async () => {
    serve([trip('to_pay'), busy(503, 45), trip('settled')]);
    const res = await run(['pay-link', R, '--wait']);
    expect(res.code, res.stderr).toBe(0);
    const r = reads();
    const i = r.findIndex((l) => l.status === 503);
    expect(r[i + 1].at - r[i].at).toBeGreaterThanOrEqual(45_000);
  });

  it('gives up without another read when Retry-After goes past --wait-timeout', async () => {
    serve([busy(429, 600)]);
    const res = await run(['pay-link', R, '--wait', '--wait-timeout', '60']);
    expect(res.code).toBe(6);
    expect(res.stderr).toMatch(/600 s/);
    // one read, answered 429: nothing is sent after that
    expect(reads().map((l) => l.status)).toEqual([429]);
    expect(log.at(-1)!.status).toBe(429);
  });
});

describe('trips --watch', () => {
  it('waits the Retry-After of a 503 on a re-read, then keeps watching', async () => {
    serve([trip('to_pay'), busy(503, 90), trip('settled')]);
    const res = await run(['trips', R, '--watch']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('changed: payment');
    const r = reads();
    const i = r.findIndex((l) => l.status === 503);
    expect(i).toBeGreaterThan(0);
    expect(r[i + 1].at - r[i].at).toBeGreaterThanOrEqual(90_000);
  });

  it('gives up without another read when Retry-After goes past --watch-timeout', async () => {
    serve([trip('to_pay'), busy(429, 300)]);
    const res = await run(['trips', R, '--watch', '--watch-timeout', '60']);
    expect(res.code).toBe(6);
    expect(reads().map((l) => l.status)).toEqual([200, 429]);
  });
});

describe('the request sender', () => {
  it('re-sends a read no sooner than Retry-After', async () => {
    let first = true;
    serve([], (req) => {
      if (req.path !== '/my/profile' || !first) return undefined;
      first = false;
      return busy(429, 7);
    });
    const res = await run(['profile']);
    expect(res.code, res.stderr).toBe(0);
    const [limited, next] = log.filter((l) => l.key === 'GET /my/profile');
    expect(next.at - limited.at).toBeGreaterThanOrEqual(7_000);
  });

  it('gives up at once, sending nothing more, when Retry-After is longer than its retries may wait', async () => {
    serve([], (req) => (req.path === '/my/profile' ? busy(429, 600) : undefined));
    const res = await run(['profile']);
    expect(res.code).toBe(6);
    expect(log.filter((l) => l.key === 'GET /my/profile')).toHaveLength(1);
    expect(virtual).toBe(0);
    expect(res.stderr).toMatch(/wait 600 s/);
  });

  it('says how long a 503 asked to wait when it gives up', async () => {
    serve([], (req) => (req.path === '/my/verification' ? busy(503, 120) : undefined));
    const res = await run(['verification']);
    expect(res.code).toBe(6);
    expect(log.filter((l) => l.key === 'GET /my/verification')).toHaveLength(1);
    expect(res.stderr).toMatch(/wait 120 s \(Retry-After\)/);
  });
});
