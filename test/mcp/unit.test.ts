// The pure parts of `carrental mcp`: confirmations and the install's secret, toolsets, the
// X-Agent-Client value, annotations from the operations table, and tool errors.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS } from '../../src/api/operations.js';
import { CliError, usageError } from '../../src/errors.js';
import { CONFIRMATION_MINUTES, Confirmations, ToolError } from '../../src/mcp/confirmation.js';
import { errorResult, okResult } from '../../src/mcp/results.js';
import { agentClientName, annotationsFor, parseToolsets } from '../../src/mcp/server.js';
import { installSecret, SECRET_FILE } from '../../src/store/install-secret.js';

describe('confirmations', () => {
  const secret = Buffer.alloc(32, 7);
  let now = new Date('2026-11-20T18:00:00Z');
  const c = new Confirmations(secret, () => now);
  const binding = Confirmations.binding(['sandbox', 'fp', { car_alias: 'a' }]);

  it('opens only what it issued, for that operation and binding, with the amounts it carried', () => {
    const { confirmation } = c.issue('reserve', binding, { total: 18500, deposit: 20000 });
    expect(c.open('reserve', binding, confirmation, 'again')).toMatchObject({ total: 18500, deposit: 20000, expired: false });
    expect(() => c.open('cancel', binding, confirmation, 'again')).toThrow(/issued for another reservation/);
    expect(() => c.open('reserve', Confirmations.binding(['other']), confirmation, 'again')).toThrow(/issued for another request/);
    expect(() => new Confirmations(Buffer.alloc(32, 8), () => now).open('reserve', binding, confirmation, 'again')).toThrow(/not one this server issued/);
    expect(() => c.open('reserve', binding, `${confirmation}x`, 'again')).toThrow(ToolError);
  });

  it('one confirmation, one idempotency key: the same again, another for a second quote', () => {
    const a = c.issue('reserve', binding, { total: 1, deposit: 2 }).confirmation;
    const b = c.issue('reserve', binding, { total: 1, deposit: 2 }).confirmation;
    const key = c.open('reserve', binding, a, '').key;
    expect(key).toMatch(/^mcp-[A-Za-z0-9_-]{32}$/);
    expect(c.open('reserve', binding, a, '').key).toBe(key);
    expect(c.open('reserve', binding, b, '').key).not.toBe(key);
  });

  it(`expires after ${CONFIRMATION_MINUTES} minutes, not before`, () => {
    const { confirmation } = c.issue('cancel', binding);
    now = new Date(now.getTime() + CONFIRMATION_MINUTES * 60_000);
    expect(c.open('cancel', binding, confirmation, '').expired).toBe(false);
    now = new Date(now.getTime() + 1000);
    expect(c.open('cancel', binding, confirmation, '').expired).toBe(true);
  });
});

describe('install secret', () => {
  it('is made once, 0600, and read back the same; a corrupt one is a clear error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-'));
    try {
      const a = installSecret(join(dir, 'config'));
      expect(installSecret(join(dir, 'config')).equals(a)).toBe(true);
      expect(statSync(join(dir, 'config', SECRET_FILE)).mode & 0o777).toBe(0o600);
      expect(readdirSync(join(dir, 'config'))).toEqual([SECRET_FILE]);
      writeFileSync(join(dir, 'config', SECRET_FILE), 'short');
      expect(() => installSecret(join(dir, 'config'))).toThrow(/is not 64 hex digits/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('toolsets', () => {
  it('default to the read-only ones (booking too with --allow-booking); an unknown name fails start-up', () => {
    expect([...parseToolsets(undefined, false)]).toEqual(['catalog', 'account', 'links']);
    expect([...parseToolsets(undefined, true)]).toEqual(['catalog', 'account', 'links', 'booking']);
    expect([...parseToolsets(' catalog,booking ', false)]).toEqual(['catalog', 'booking']);
    expect(() => parseToolsets('catalog,bookings', false)).toThrow('--toolsets takes a comma-separated list of catalog, account, links, booking; unknown: bookings');
    expect(() => parseToolsets('', false)).toThrow(/--toolsets takes/);
  });
});

describe('X-Agent-Client', () => {
  it('names the host, then carrental, in printable ASCII within 64 characters', () => {
    expect(agentClientName({ name: 'claude-ai', version: '0.1.0' }, '1.2.3')).toBe('claude-ai/0.1.0 carrental/1.2.3');
    expect(agentClientName({ name: 'Visual Studio Code', version: '1.99' }, '1.2.3')).toBe('Visual-Studio-Code/1.99 carrental/1.2.3');
    expect(agentClientName({ name: 'x'.repeat(80), version: '1' }, '1.2.3')).toBe('x'.repeat(64));
    for (const v of [agentClientName({ name: 'Höst\u0007', version: 'ü' }, '1'), agentClientName({ name: 'a'.repeat(60), version: '9' }, '1')]) {
      expect(v).toMatch(/^[\x20-\x7e]{1,64}$/);
    }
  });

  it('is carrental/<version> when the host reports no name', () => {
    expect(agentClientName(undefined, '1.2.3')).toBe('carrental/1.2.3');
    expect(agentClientName({ name: '  ', version: '1' }, '1.2.3')).toBe('carrental/1.2.3');
  });
});

describe('annotations', () => {
  it('reads are readOnlyHint; create is an idempotent non-destructive write, cancel a destructive one', () => {
    const op = (id: string) => OPERATIONS.find((o) => o.id === id)!;
    for (const o of OPERATIONS.filter((o) => o.capability !== 'booking_write')) expect(annotationsFor(o, 't').readOnlyHint).toBe(true);
    expect(annotationsFor(op('createReservation'), 't')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(annotationsFor(op('cancelReservation'), 't')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  });
});

describe('results', () => {
  const key = 'svc_abcdefghijklmnop1234';

  it('masks the key in structured content and text alike', () => {
    const r = okResult({ echoed: `key ${key}` }, [key]);
    expect(JSON.stringify(r)).not.toContain(key);
    expect((r.structuredContent as any).echoed).toBe('key svc_…1234');
  });

  it('a 429 says the wait and what to do, with the error_code and description', () => {
    const err = new CliError('unavailable', 'Too many requests', { api: { status: 429, error_code: 'rate_limited', description: `slow down ${key}`, retryAfter: 7, request_id: 'req_1' } });
    const r = errorResult(err, { secrets: [key] });
    expect(r.isError).toBe(true);
    const text = (r.content[0] as { text: string }).text;
    expect(text).toContain('error: Too many requests (rate_limited, request req_1)');
    expect(text).toContain('retry after: 7 s');
    expect(text).toContain('next step: wait 7 s, then call the tool again');
    expect(JSON.stringify(r)).not.toContain(key);
    expect(JSON.parse((r.content[1] as { text: string }).text).error).toMatchObject({ http_status: 429, retry_after_seconds: 7, error_code: 'rate_limited' });
  });

  it('never passes on the CLI hint of an API error (it names flags and commands)', () => {
    const err = new CliError('api', 'Dates in the past', { api: { status: 400, error_code: 'date_in_past' }, hint: 'give a later --from' });
    const next = JSON.parse((errorResult(err, { secrets: [] }).content[1] as { text: string }).text).error.next_step;
    expect(next).toContain('date_checkin');
    expect(next).not.toContain('--');
    const unknownCode = new CliError('api', 'Odd', { api: { status: 400, error_code: 'something_new' }, hint: 'run `carrental doctor`' });
    expect(JSON.stringify(errorResult(unknownCode, { secrets: [] }))).not.toContain('carrental doctor');
  });

  it('a usage error says no request was sent; an unexpected failure is still a tool error', () => {
    expect((errorResult(usageError('date_checkin is wrong'), { secrets: [] }).content[0] as { text: string }).text).toMatch(/no request was sent/);
    const r = errorResult(new TypeError(`boom ${key}`), { secrets: [key] });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r)).not.toContain(key);
  });
});
