import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { type Harness, expectError, startHarness, tempDir } from './harness.js';

let h: Harness;
afterEach(() => h?.close());

// 45 seconds into a UTC minute: the window ends in 15 seconds.
const now = () => new Date('2026-03-10T18:00:45Z');
const quote = { car_alias: 'toyota-camry-1001', date_checkin: '2026-04-14T10:00', date_checkout: '2026-04-17T10:00' };

describe('rate budgets', () => {
  it('share a per-IP catalog budget between car list, car detail and anonymous quotes', async () => {
    h = await startHarness({ now, config: { catalogRateLimitPerMinute: 3 } });
    expect((await h.call('GET', '/cars?limit=1')).status).toBe(200);
    expect((await h.call('GET', '/cars/toyota-camry-1001')).status).toBe(200);
    expect((await h.call('POST', '/reservation/quote', { body: quote })).status).not.toBe(429);
    const limited = await h.call('GET', '/cars?limit=1');
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('15');
    expectError(await h.call('POST', '/reservation/quote', { body: quote }), 429, 'rate_limited');
    // A keyed quote spends the key's budget, not the exhausted catalog budget.
    expect((await h.call('POST', '/reservation/quote', { key: h.sb.keys.read_only, body: quote })).status).toBe(200);
    expect((await h.call('GET', '/my/profile', { key: h.sb.keys.read_only })).status).toBe(200);
  });

  it('give each key its own budget in fixed UTC-minute windows; a new minute resets it', async () => {
    h = await startHarness({ now, config: { keyRateLimitPerMinute: 2 } });
    const k = h.sb.keys.read_only;
    expect((await h.call('GET', '/my/profile', { key: k })).status).toBe(200);
    expect((await h.call('GET', '/my/trips', { key: k })).status).toBe(200);
    const limited = await h.call('GET', '/my/profile', { key: k });
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('15');
    expect((await h.call('GET', '/my/profile', { key: h.sb.keys.booking_write })).status).toBe(200);
    expect((await h.call('GET', '/cars?limit=1')).status).toBe(200);
    await h.admin('POST', '/clock', { advance_seconds: 15 });
    expect((await h.call('GET', '/my/profile', { key: k })).status).toBe(200);
  });

  it('charge invalid-key and anonymous account calls to the per-IP general budget', async () => {
    h = await startHarness({ now, config: { generalRateLimitPerMinute: 3 } });
    expectError(await h.call('GET', '/my/profile', { key: 'svc_00000000000000000000000000000000' }), 401, 'invalid_credentials');
    expectError(await h.call('GET', '/my/profile'), 401, 'invalid_credentials');
    expectError(
      await h.call('POST', '/reservation/quote', { key: h.sb.keys.read_only, headers: { 'X-API-Key': h.sb.keys.read_only }, body: quote }),
      401,
      'conflicting_credentials',
    );
    const limited = await h.call('GET', '/my/profile', { key: 'svc_00000000000000000000000000000000' });
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBe(15);
    // Valid keys and the catalog are unaffected.
    expect((await h.call('GET', '/my/profile', { key: h.sb.keys.read_only })).status).toBe(200);
    expect((await h.call('GET', '/cars?limit=1')).status).toBe(200);
  });

  it('answer a Retry-After of at least 1 second at the very end of a window', async () => {
    h = await startHarness({ now: () => new Date('2026-03-10T18:00:59.900Z'), config: { catalogRateLimitPerMinute: 0 } });
    const limited = await h.call('GET', '/cars');
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('1');
  });

  it('can be reset through the admin endpoint', async () => {
    h = await startHarness({ now, config: { catalogRateLimitPerMinute: 1 } });
    expect((await h.call('GET', '/cars?limit=1')).status).toBe(200);
    expect((await h.call('GET', '/cars?limit=1')).status).toBe(429);
    await h.admin('POST', '/rate-limits/reset');
    expect((await h.call('GET', '/cars?limit=1')).status).toBe(200);
    await h.admin('PATCH', '/config', { catalogRateLimitPerMinute: 5 });
    expect((await h.call('GET', '/cars?limit=1')).status).toBe(200);
  });

  // the spec: "shared by all API instances"; the SQLite store keeps the counts in the state file
  it.skipIf(!loadSqlite())('are shared by every sandbox on the same state file', async () => {
    const { dir, cleanup } = tempDir();
    const statePath = join(dir, 'state.json');
    const a = await startHarness({ now, statePath, config: { keyRateLimitPerMinute: 3 } });
    const b = await startHarness({ now, statePath, config: { keyRateLimitPerMinute: 3 } });
    try {
      const k = a.sb.keys.read_only;
      expect((await a.call('GET', '/my/profile', { key: k })).status).toBe(200);
      expect((await b.call('GET', '/my/profile', { key: k })).status).toBe(200);
      expect((await a.call('GET', '/my/profile', { key: k })).status).toBe(200);
      expectError(await b.call('GET', '/my/profile', { key: k }), 429, 'rate_limited');
      expectError(await a.call('GET', '/my/profile', { key: k }), 429, 'rate_limited');
      // a reset through one clears them for both
      await a.admin('POST', '/rate-limits/reset');
      expect((await b.call('GET', '/my/profile', { key: k })).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
      cleanup();
    }
  });

  // docs/sandbox.md, "Rate limits": on Node 20 the JSON store keeps no counts, each process
  // counts its own; this pins what the page says, so sharing them there updates both
  it('are counted per process on the Node 20 JSON store', async () => {
    const { dir, cleanup } = tempDir();
    const statePath = join(dir, 'state.json');
    const a = await startHarness({ now, statePath, store: 'json', config: { keyRateLimitPerMinute: 2 } });
    const b = await startHarness({ now, statePath, store: 'json', config: { keyRateLimitPerMinute: 2 } });
    try {
      const k = a.sb.keys.read_only;
      for (const h of [a, a, b, b]) expect((await h.call('GET', '/my/profile', { key: k })).status).toBe(200);
      for (const h of [a, b]) expectError(await h.call('GET', '/my/profile', { key: k }), 429, 'rate_limited');
    } finally {
      await a.close();
      await b.close();
      cleanup();
    }
  });
});
