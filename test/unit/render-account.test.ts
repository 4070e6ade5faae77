import { describe, expect, it } from 'vitest';
import { licenceExpiry } from '../../src/commands/verification.js';
import { cardExpired, describeCard } from '../../src/render/card.js';

const now = new Date('2026-06-15T12:00:00Z');

describe('licenceExpiry', () => {
  it('warns about an expired licence with the days since', () => {
    const r = licenceExpiry({ status: 'approved', expires_at: '2026-06-05', expired: true, expiring_soon: false }, now);
    expect(r.text).toBe('2026-06-05: expired (10 days ago)');
    expect(r.warning).toContain('expired on 2026-06-05');
  });
  it('warns about a licence expiring within 30 days', () => {
    const r = licenceExpiry({ status: 'approved', expires_at: '2026-07-05', expired: false, expiring_soon: true }, now);
    expect(r.text).toBe('2026-07-05: expires in 20 days');
    expect(r.warning).toContain('expires in 20 days');
  });
  it('does not warn about a valid licence, nor about a missing date', () => {
    expect(licenceExpiry({ status: 'approved', expires_at: '2029-01-01', expired: false, expiring_soon: false }, now)).toEqual({ text: '2029-01-01' });
    expect(licenceExpiry({ status: 'pending', expires_at: null, expired: false, expiring_soon: false }, now)).toEqual({ text: 'not recorded', warning: undefined });
  });
  it('trusts the API flags over the local clock', () => {
    // the API says not expiring soon although the date is close by our clock: no warning
    expect(licenceExpiry({ status: 'approved', expires_at: '2026-06-20', expired: false, expiring_soon: false }, now).warning).toBeUndefined();
  });
});

describe('cards', () => {
  const card = { id: 'c1', card_brand: 'visa', last4: '4242', exp_month: 6, exp_year: 2026 };
  it('is valid through the end of its expiry month', () => {
    expect(cardExpired(card, now)).toBe(false);
    expect(cardExpired({ ...card, exp_month: 5 }, now)).toBe(true);
  });
  it('is described masked with its expiry', () => {
    expect(describeCard(card, now)).toBe('visa •••• 4242, expires 06/2026');
    expect(describeCard({ ...card, exp_year: 2025 }, now)).toBe('visa •••• 4242, expired 06/2025');
  });
});
