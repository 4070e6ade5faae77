// A history for the Node 20 store's scale tests (store-json-bound.test.ts,
// store-json-serve.e2e.test.ts): trips booked through the rules at FIXED_NOW, as
// `POST /my/reservation` books them, and copies of a paid and cancelled one.
import { randomUUID } from 'node:crypto';
import { resolveConfig } from '../../src/sandbox/config.js';
import { fleetOf } from '../../src/sandbox/context.js';
import { licenceState } from '../../src/sandbox/facts.js';
import { cancelReservation, createReservation, payRentInvoice } from '../../src/sandbox/rules.js';
import { anchorDay, type SandboxState } from '../../src/sandbox/state.js';
import type { Store } from '../../src/sandbox/store.js';
import { FIXED_NOW } from './harness.js';

const config = resolveConfig({ maxActiveReservations: 1e9 });
export const envOf = (draft: SandboxState) => ({ now: new Date(FIXED_NOW.getTime() + draft.clockOffsetMs), newId: randomUUID, config, fleet: fleetOf(draft), anchorDay: anchorDay(draft) });
const day = (d: number) => new Date(FIXED_NOW.getTime() + d * 86_400_000).toISOString().slice(0, 10);

/** Books one trip through the rules, with its idempotency record; `i` spreads cars and dates. */
export function book(draft: SandboxState, i: number): string {
  const env = envOf(draft);
  const drivers = draft.customers.filter((c) => licenceState(c, env.now).approved);
  const customer = drivers[i % drivers.length];
  const car = env.fleet.cars[i % env.fleet.cars.length];
  const d = 20 + (i % 300);
  const body = { car_alias: car.car_alias, date_checkin: `${day(d)}T10:00`, date_checkout: `${day(d + 2)}T10:00`, options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } };
  const uuid = createReservation(draft, env, customer, body);
  const key = randomUUID();
  draft.idempotency[`${customer.id}:${key}`] = { operation: 'createReservation', fingerprint: key, status: 200, body: JSON.stringify({ data: uuid }), created_at: env.now.toISOString() };
  return uuid;
}

/**
 * Grows the history to `count` reservations the way a CI job leaves it (paid, cancelled,
 * with invoices and idempotency records): one is booked through the rules, the rest are
 * copies of it under new ids (booking thousands through the rules would take minutes).
 */
export async function grow(store: Store, count: number) {
  await store.transact((draft) => {
    const env = envOf(draft);
    const uuid = book(draft, 0);
    payRentInvoice(draft, env, uuid);
    cancelReservation(draft, env, draft.customers.find((c) => c.id === draft.reservations[uuid].customer_id)!, uuid);
    const rec = draft.reservations[uuid];
    const invoices = Object.values(draft.invoices).filter((v) => v.reservation_uuid === uuid);
    const idem = Object.entries(draft.idempotency).find(([, v]) => v.body.includes(uuid))!;
    for (let n = Object.keys(draft.reservations).length; n < count; n++) {
      const id = randomUUID();
      draft.reservations[id] = { ...structuredClone(rec), uuid: id };
      for (const inv of invoices) {
        const iid = `${inv.id}-${n}`;
        draft.invoices[iid] = { ...structuredClone(inv), id: iid, reservation_uuid: id };
      }
      draft.idempotency[`${idem[0]}-${n}`] = { ...idem[1], body: JSON.stringify({ data: id }) };
    }
  });
}
