// `trips <uuid>` shows what was booked (protection, mileage, delivery address, extras,
// promo) and where the deposit stands, when the API returns them; `invoices` explains a DEBT
// invoice as the payable of what is owed. In-process against the sandbox; unit tests for a
// server that sends none of these fields.
import { describe, expect, it } from 'vitest';
import type { Trip } from '../../src/api/schemas.js';
import { bookingPairs, depositPair } from '../../src/render/trip-booking.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { FROM, TO, admin, freeCars, test } from '../booking/sandbox.js';

// a terminal's text without its styles
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

/** A free LA car with at least two extras, and those extras' item types and titles. */
async function carWithExtras(sb: RunningSandbox): Promise<{ alias: string; extras: Array<{ item_type: string; title: string }> }> {
  for (const alias of await freeCars(sb, 10)) {
    const car = (await (await fetch(`${sb.baseUrl}/cars/${alias}`)).json()) as { data: { prices?: { extras?: Array<{ item_type: string; title: string }> } } };
    const extras = car.data.prices?.extras ?? [];
    if (extras.length >= 2) return { alias, extras };
  }
  throw new Error('no free LA car with two extras in the fixtures');
}

describe('trips <uuid>: the Booking section', () => {
  test('shows protection, mileage, delivery address, extras by title, the promo code and the deposit due', async ({ sb, cli }) => {
    const { alias, extras } = await carWithExtras(sb);
    const [a, b] = extras;
    const reserved = await cli([
      'reserve', alias, '--from', FROM, '--to', TO, '--protection', 'standard', '--mileage', 'unlimited',
      '--delivery-address', '1 Main St, Los Angeles', '--extra', a.item_type, '--extra', b.item_type, '--promo', 'SAVE50', '-y',
    ]);
    expect(reserved.code, reserved.stderr).toBe(0);
    const uuid = reserved.stdout.trim();

    // in a pipe: one bare value per field
    const res = await cli(['trips', uuid]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('protection\tstandard');
    expect(res.stdout).toContain('mileage\tunlimited');
    expect(res.stdout).toContain('delivery\tdelivery');
    expect(res.stdout).toContain('delivery address\t1 Main St, Los Angeles');
    const extrasLine = res.stdout.split('\n').find((l) => l.startsWith('extras\t'));
    expect(extrasLine?.split('\t')[1].split(',').sort()).toEqual([a.item_type, b.item_type].sort());
    expect(res.stdout).toContain('promo code\tSAVE50');
    expect(res.stdout).toContain('deposit status\tdue');
    expect(res.stdout).not.toMatch(/^#/m);
    // on a terminal: in words
    const shown = plain((await cli(['trips', uuid], { tty: true })).stdout);
    expect(shown).toContain('Booking');
    expect(shown).toMatch(/delivery\s+to 1 Main St, Los Angeles/);
    for (const e of [a, b]) expect(shown).toContain(`${e.title} (${e.item_type})`);
    expect(shown.replace(/\s+/g, ' ')).toMatch(new RegExp(`deposit status \\$[\\d,.]+ due, not authorised yet \\(the customer authorises it on the page from \`carrental pay-link ${uuid} --type deposit\`\\)`));
  });

  test('the defaults read as such, and the deposit reads authorised once held', async ({ sb, alias, cli }) => {
    const uuid = (await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y'])).stdout.trim();
    await admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'deposit' });
    const res = await cli(['trips', uuid]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('protection\tminimum\n');
    expect(res.stdout).toContain('mileage\tlimited\n');
    expect(res.stdout).toContain('delivery\tpickup\n');
    expect(res.stdout).toContain('extras\t\n');
    expect(res.stdout).toContain('deposit status\theld\n');
    const shown = plain((await cli(['trips', uuid], { tty: true })).stdout).replace(/\s+/g, ' ');
    expect(shown).toContain('protection minimum (the default)');
    expect(shown).toContain('mileage limited (the default)');
    expect(shown).toContain('delivery none: picked up at the car (the default)');
    expect(shown).toContain('extras none');
    expect(shown).toContain('promo code none');
    expect(shown).toMatch(/deposit status \$[\d,.]+ authorised: a hold on the card, not a charge/);
  });
});

describe('DEBT invoices', () => {
  test('trips and invoices explain the DEBT invoice as the payable of what is owed, not a second charge', async ({ alias, cli }) => {
    const uuid = (await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y'])).stdout.trim();
    const trip = await cli(['trips', uuid]); // reading the detail prepares the DEBT invoice
    expect(trip.stdout).toContain('DEBT');
    const note = 'note: a DEBT invoice is not a second charge: it is the payable of what is owed';
    expect(trip.stderr).toContain(note);
    const invoices = await cli(['invoices', uuid]);
    expect(invoices.code, invoices.stderr).toBe(0);
    expect(invoices.stderr).toContain(note);
  });
});

describe('a server that sends none of these fields', () => {
  const bare: Trip = { uuid: '6f1c1d7e-1111-4222-8333-444455556666', status: 'new' };
  it('no booking rows and no deposit row without invoices', () => {
    expect(bookingPairs(bare)).toEqual([]);
    expect(depositPair(bare, 'carrental', bare.uuid)).toBeUndefined();
  });
  it('malformed fields are left out, never guessed', () => {
    const odd = { ...bare, options: 'standard', extras: 'gps', promo_code: 42 } as unknown as Trip;
    expect(bookingPairs(odd)).toEqual([]);
  });
});
