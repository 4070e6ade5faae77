// Waiting for the customer's payment without a polling loop (issue 34): wait_for_payment
// returns once the rent or deposit is paid, or after a bounded time, reading no faster than
// every 5 s; it may run as a Task. Payment and card links are offered through the host
// (URL-mode elicitation) where it can, and are still returned in the result.
import { afterEach, describe, expect, vi } from 'vitest';
import { TOOLS, moreTools, type ToolDeps } from '../../src/mcp/tools.js';
import { FROM, TO, admin, test } from '../booking/sandbox.js';
import { serve, structured, type Session } from './in-process.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const tool = (name: string) => [...TOOLS, ...moreTools().map(([, t]) => t)].find((t) => t.name === name)!;

/** Every call of the named tool runs with these deps changed (what server.ts would fill in). */
function withDeps(name: string, change: Partial<ToolDeps>): void {
  const t = tool(name);
  const run = t.run.bind(t);
  vi.spyOn(t, 'run').mockImplementation((args, deps) => run(args, { ...deps, ...change }));
}

async function booked(s: Session, alias: string): Promise<string> {
  const q = structured(await s.call('quote', { car_alias: alias, date_checkin: FROM, date_checkout: TO }));
  return structured(await s.call('reserve', { car_alias: alias, date_checkin: FROM, date_checkout: TO, confirmation: q.confirmation })).reservation_uuid;
}

describe('wait_for_payment', () => {
  test('is offered read-only, declares task support, and returns once the rent is paid (no loop for the agent)', async ({ sb, home, alias }) => {
    expect(tool('wait_for_payment').taskSupport).toBe('optional');
    const readOnly = await serve(sb, home, { argv: [] });
    const listed = (await readOnly.client.listTools()).tools.find((t) => t.name === 'wait_for_payment');
    await readOnly.stop();
    expect(listed?.annotations).toMatchObject({ readOnlyHint: true });

    const s = await serve(sb, home);
    try {
      const uuid = await booked(s, alias);
      const sleeps: number[] = [];
      withDeps('wait_for_payment', {
        sleep: async (ms) => {
          sleeps.push(ms);
          // the customer pays while the tool waits
          if (sleeps.length === 2) await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
        },
      });
      const r = await s.call('wait_for_payment', { reservation_uuid: uuid });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(structured(r)).toMatchObject({ reservation_uuid: uuid, payment_type: 'rent', paid: true, reads: 3, payment_status: { type: 'settled' } });
      expect(sleeps).toEqual([5000, 5000]);
    } finally {
      await s.stop();
    }
  });

  test('gives up after timeout_seconds, says it is not paid and how to go on', async ({ sb, home, alias }) => {
    const s = await serve(sb, home);
    try {
      const uuid = await booked(s, alias);
      const sleeps: number[] = [];
      withDeps('wait_for_payment', { sleep: async (ms) => void sleeps.push(ms) });
      const r = structured(await s.call('wait_for_payment', { reservation_uuid: uuid, payment_type: 'deposit', timeout_seconds: 12 }));
      expect(r).toMatchObject({ paid: false, waited_seconds: 12, deposit_state: 'due' });
      expect(r.next_step).toMatch(/^not paid yet: call wait_for_payment again/);
      expect(sleeps).toEqual([5000, 5000, 2000]);
      const bad = await s.call('wait_for_payment', { reservation_uuid: uuid, timeout_seconds: 601 });
      expect(bad.isError).toBe(true);
    } finally {
      await s.stop();
    }
  });
});

describe('links offered through the host', () => {
  test('payment_link and card_link offer the link (URL-mode elicitation) and still return it', async ({ sb, home, alias }) => {
    const s = await serve(sb, home);
    try {
      const uuid = await booked(s, alias);
      const offers: Array<[string, string]> = [];
      const offerUrl = () => async (message: string, url: string) => {
        offers.push([message, url]);
        return 'accept' as const;
      };
      withDeps('payment_link', { offerUrl });
      withDeps('card_link', { offerUrl });
      const pay = structured(await s.call('payment_link', { reservation_uuid: uuid }));
      expect(pay).toMatchObject({ status: 'requires_user_action', offered_to_customer: 'accept' });
      expect(offers[0]).toEqual([`Pay the rent of reservation ${uuid} on the rental company’s page.`, pay.url]);
      const card = structured(await s.call('card_link', {}));
      expect(offers[1][1]).toBe(card.url);
      expect(card.offered_to_customer).toBe('accept');
    } finally {
      await s.stop();
    }
    // a host that cannot open links: the result has the link and says nothing of an offer
    vi.restoreAllMocks();
    const plain = await serve(sb, home, { argv: [] });
    try {
      const card = structured(await plain.call('card_link', {}));
      expect(card.url).toMatch(/^http/);
      expect(card).not.toHaveProperty('offered_to_customer');
    } finally {
      await plain.stop();
    }
  });
});
