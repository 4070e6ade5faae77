import { describe, expect, it } from 'vitest';
import { baseClock } from '../../src/sandbox/clock.js';
import { DEFAULT_CONFIG, resolveConfig } from '../../src/sandbox/config.js';
import { faultsFromEnv } from '../../src/sandbox/faults.js';
import { defaultSandboxStatePath } from '../../src/sandbox/index.js';

describe('configuration', () => {
  it('layers defaults, CARRENTAL_SANDBOX_CONFIG and the options, in that order', () => {
    expect(resolveConfig(undefined, {})).toEqual(DEFAULT_CONFIG);
    const env = { CARRENTAL_SANDBOX_CONFIG: JSON.stringify({ maxActiveReservations: 1, keyRateLimitPerMinute: 7 }) };
    expect(resolveConfig({ maxActiveReservations: 9 }, env)).toEqual({ ...DEFAULT_CONFIG, maxActiveReservations: 9, keyRateLimitPerMinute: 7 });
  });

  it('refuses invalid JSON, unknown knobs and bad values', () => {
    expect(() => resolveConfig(undefined, { CARRENTAL_SANDBOX_CONFIG: '{' })).toThrow(/CARRENTAL_SANDBOX_CONFIG/);
    expect(() => resolveConfig(undefined, { CARRENTAL_SANDBOX_CONFIG: '{"maxActive": 1}' })).toThrow(/CARRENTAL_SANDBOX_CONFIG/);
    expect(() => resolveConfig({ openingTime: '7am' }, {})).toThrow(/openingTime/);
    expect(() => resolveConfig({ keyRateLimitPerMinute: -1 }, {})).toThrow(/keyRateLimitPerMinute/);
  });

  it('reads faults from CARRENTAL_SANDBOX_FAULTS', () => {
    expect(faultsFromEnv({})).toEqual([]);
    const faults = faultsFromEnv({ CARRENTAL_SANDBOX_FAULTS: JSON.stringify([{ kind: 'drop', operation: 'createReservation', times: 1 }]) });
    expect(faults).toEqual([{ kind: 'drop', operation: 'createReservation', when: 'after_commit', times: 1 }]);
    expect(() => faultsFromEnv({ CARRENTAL_SANDBOX_FAULTS: '[{"kind":"drop","operation":"nope"}]' })).toThrow(/operation/);
  });
});

describe('clock', () => {
  it('starts at CARRENTAL_SANDBOX_NOW and advances in real time', async () => {
    const clock = baseClock(undefined, { CARRENTAL_SANDBOX_NOW: '2026-12-01T10:00:00Z' });
    const a = clock().getTime();
    expect(a - Date.parse('2026-12-01T10:00:00Z')).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 30));
    expect(clock().getTime()).toBeGreaterThan(a);
    expect(() => baseClock(undefined, { CARRENTAL_SANDBOX_NOW: 'tomorrow' })).toThrow(/CARRENTAL_SANDBOX_NOW/);
    const fixed = new Date('2026-01-01T00:00:00Z');
    expect(baseClock(() => fixed, { CARRENTAL_SANDBOX_NOW: '2026-12-01T10:00:00Z' })()).toBe(fixed);
  });
});

describe('defaultSandboxStatePath', () => {
  it('is sandbox-state.json in the data directory, overridable with CARRENTAL_SANDBOX_STATE', () => {
    expect(defaultSandboxStatePath({ CARRENTAL_SANDBOX_STATE: '/tmp/x/state.json' })).toBe('/tmp/x/state.json');
    const path = defaultSandboxStatePath({});
    expect(path).toMatch(/carrental[/\\]sandbox-state\.json$/);
    expect(path).not.toMatch(/carrental-nodejs/);
  });
});
