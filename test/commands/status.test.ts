// `carrental status` against the sandbox's demo customer, and its pure logic on trips the
// sandbox does not make on its own (an unpaid extension, a refund, a pending cancellation).
import { describe, expect, it } from 'vitest';
import type { Trip } from '../../src/api/schemas.js';
import { NEEDS_ACTION_EXIT, tripStatus, type TripStatus } from '../../src/commands/status.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest((s) => (sb = s), (h) => (home = h));

const status = (args: string[] = [], tty = false) =>
  runCommand(['--base-url', sb.baseUrl, 'status', ...args], { tty, sleep: async () => {}, env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }) });

describe('carrental status', () => {
  it('--json: each active trip with what it owes and the exact next command; --exit-status exits 8', async () => {
    await sb.admin('POST', '/reset');
    const r = await status(['--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { needs_action: boolean; trips: TripStatus[] };
    expect(doc.needs_action).toBe(true);
    const owing = doc.trips.find((t) => t.needs_action)!;
    expect(owing.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'rent', state: 'to_pay', needs_action: true, amount_cents: expect.any(Number), next: `carrental pay-link ${owing.uuid}` }),
        expect.objectContaining({ kind: 'deposit', state: 'not_authorised', next: `carrental pay-link ${owing.uuid} --type deposit` }),
      ]),
    );
    expect((await status(['--exit-status'])).code).toBe(NEEDS_ACTION_EXIT);

    // the customer pays both: nothing needs them any more
    for (const t of doc.trips.filter((x) => x.needs_action)) {
      for (const item of t.items) {
        if (item.kind === 'rent' || item.kind === 'extension') await sb.admin('POST', '/pay', { reservation_uuid: t.uuid, payment_type: 'rent' });
        if (item.kind === 'deposit') await sb.admin('POST', '/pay', { reservation_uuid: t.uuid, payment_type: 'deposit' });
      }
    }
    const after = await status(['--exit-status', '--json']);
    expect(after.code, after.stdout).toBe(0);
    expect(JSON.parse(after.stdout).needs_action).toBe(false);
  });

  it('in a pipe: one line per item, tab-separated, the amount plain in its own field, the next command in the last', async () => {
    await sb.admin('POST', '/reset');
    const doc = JSON.parse((await status(['--json'])).stdout) as { trips: TripStatus[] };
    const r = await status();
    expect(r.code).toBe(0);
    const lines = r.stdout.replace(/\n$/, '').split('\n').map((l) => l.split('\t'));
    expect(lines.every((f) => f.length === 6)).toBe(true);
    const rent = lines.find((f) => f[3] === 'to pay')!;
    expect(rent[5]).toBe(`carrental pay-link ${rent[0]}`);
    expect(new Set(lines.map((f) => f[0]))).toEqual(new Set(doc.trips.map((t) => t.uuid)));
    expect(r.stderr).toBe('');
  });

  it('on a terminal: a block per trip, every uuid and next command whole', async () => {
    await sb.admin('POST', '/reset');
    const doc = JSON.parse((await status(['--json'])).stdout) as { trips: TripStatus[] };
    const r = await status([], true);
    expect(r.code).toBe(0);
    for (const t of doc.trips) {
      expect(r.stdout).toContain(t.uuid);
      for (const item of t.items) if (item.next) expect(r.stdout).toContain(`next: ${item.next}`);
    }
    expect(r.stderr).toContain('something needs you');
  });

  it('--jq picks the commands to run', async () => {
    await sb.admin('POST', '/reset');
    const r = await status(['--jq', '.trips[] | select(.needs_action) | .items[] | select(.needs_action) | .next']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').every((l) => l.startsWith('carrental pay-link '))).toBe(true);
  });
});

describe('tripStatus', () => {
  const base = { uuid: 'u-1', status: 'new', date_checkin: '2026-12-01T10:00', date_checkout: '2026-12-03T10:00', days: 2, balance_cents: 0, car: { car_alias: 'a-1', name: 'A', city: 'la' } };
  const inv = (type: string, billing_status: string, amount: number, id = `${type}-id`) => ({ id, type, billing_status, amount, status: billing_status, created_at: '2026-11-01T10:00', currency: 'USD', description: type, items: [] });

  it('an unpaid extension is its own line; the rest of what is owed is rent', () => {
    const s = tripStatus({ ...base, payment_status: { type: 'to_pay', amount: 15_000, invoice_id: 'debt' }, invoices: [inv('RENT', 'PAID', 30_000), inv('EXTEND', 'ISSUED', 5_000), inv('DEPOSIT', 'HOLD', 20_000)] } as unknown as Trip, 'carrental', base.uuid);
    expect(s.items.map((i) => [i.kind, i.state, i.amount_cents])).toEqual([
      ['rent', 'to_pay', 10_000],
      ['extension', 'to_pay', 5_000],
    ]);
    expect(s.needs_action).toBe(true);
  });

  it('a refund on its way and a held deposit need nothing from the customer', () => {
    const s = tripStatus({ ...base, payment_status: { type: 'refund', amount: 4_000, date: '2026-12-05' }, invoices: [inv('DEPOSIT', 'HOLD', 20_000)] } as unknown as Trip, 'carrental', base.uuid);
    expect(s.items).toEqual([{ kind: 'refund', state: 'refund_expected', needs_action: false, amount_cents: 4_000, date: '2026-12-05' }]);
    expect(s.needs_action).toBe(false);
  });

  it('a cancelled trip shows what its cancellation still waits for', () => {
    const s = tripStatus({ ...base, status: 'cancelled', cancellation_outcome: { status: 'cancelled', hold_release: { status: 'released' }, refund_review: { status: 'pending' }, refunds: [{ id: 'r', amount_cents: 900, status: 'confirmed', confirmed_at: null }] } } as unknown as Trip, 'carrental --sandbox', base.uuid);
    expect(s.items).toEqual([{ kind: 'cancellation', state: 'refund_review_pending', needs_action: false, next: 'carrental --sandbox trips u-1' }]);
  });
});
