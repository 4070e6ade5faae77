// Whether a car is free for a span: fixture blocks plus paid trips.
import { compareStamps, formatLocal, parseLocal } from './clock.js';
import { apiError } from './errors.js';
import { isBooked } from './facts.js';
import type { BlockedRangeRec, CarRec } from './fleet.js';
import { type SandboxState, invoicesOf, newOfCarSince } from './state.js';

interface Block extends BlockedRangeRec {
  reservation_uuid?: string;
}

/** The car-local day of wall minutes: trips whose checkout is before it cannot overlap anything from then on. */
const dayOf = (wallMinutes: number) => formatLocal(wallMinutes).slice(0, 10);

/** Fixture blocks plus paid trips that end after `sinceLocal` (car-local wall minutes; earlier ones are not read), ordered by start. */
export function carBlocks(state: SandboxState, car: CarRec, sinceLocal: number): Block[] {
  const extra: Block[] = [];
  for (const r of newOfCarSince(state, car.car_id, dayOf(sinceLocal))) {
    if (r.car_id === car.car_id && isBooked(r, invoicesOf(state, r.uuid))) {
      extra.push({ from: r.date_checkin, to: r.date_checkout, kind: 'booked', reservation_uuid: r.uuid });
    }
  }
  if (extra.length === 0) return car.blocked;
  return [...car.blocked, ...extra].sort((a, b) => compareStamps(a.from, b.from));
}

/**
 * Whether no block of `carBlocks` overlaps [checkin, checkout). A trip's invoices are read
 * only when its dates overlap: a create then reads the car's trips, not all their invoices.
 */
export function isAvailable(state: SandboxState, car: CarRec, checkin: number, checkout: number, ignoreUuid?: string): boolean {
  const overlaps = (fromStamp: string, toStamp: string | null) => {
    const from = parseLocal(fromStamp) as number;
    const to = toStamp === null ? Infinity : (parseLocal(toStamp) as number);
    return from < checkout && to > checkin;
  };
  for (const b of car.blocked as Block[]) {
    if (ignoreUuid && b.reservation_uuid === ignoreUuid) continue;
    if (overlaps(b.from, b.to)) return false;
  }
  // a trip that ends before the span starts cannot overlap it: the car's history is not read
  for (const r of newOfCarSince(state, car.car_id, dayOf(checkin))) {
    if (r.car_id !== car.car_id || (ignoreUuid && r.uuid === ignoreUuid)) continue;
    if (overlaps(r.date_checkin, r.date_checkout) && isBooked(r, invoicesOf(state, r.uuid))) return false;
  }
  return true;
}

export function assertAvailable(state: SandboxState, car: CarRec, checkin: number, checkout: number, ignoreUuid?: string) {
  if (!isAvailable(state, car, checkin, checkout, ignoreUuid)) {
    throw apiError('car_not_available', 'The car is not available for these dates');
  }
}
