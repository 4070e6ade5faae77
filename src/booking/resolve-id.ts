// Reservation and invoice uuids on the command line: a whole uuid, or a unique prefix of
// one (as git takes a short hash), resolved against the customer's own reservations. The
// shape is checked before any request (src/input/uuid-ref.ts); a whole uuid is used as
// typed, with no request.
import type { Api } from '../api/endpoints.js';
import type { Invoice, Trip } from '../api/schemas.js';
import { CliError, usageError } from '../errors.js';
import { formatLocal } from '../render/dates.js';
import { clean } from '../text/sanitize.js';
import type { UuidRef } from '../input/uuid-ref.js';

/** Reservations whose invoices are read at once while resolving an invoice prefix. */
const INVOICE_READS_AT_ONCE = 4;

interface Candidate {
  uuid: string;
  /** What tells the matches apart in an "ambiguous" message. */
  label: string;
}

/** Matches shown in an "ambiguous" error; the count says how many more there are. */
const SHOWN_MATCHES = 5;

export function pick(ref: UuidRef, candidates: Candidate[], noun: string, cli: string, listCommand: string): string {
  const matches = candidates.filter((c, i) => c.uuid.toLowerCase().startsWith(ref.text) && candidates.findIndex((d) => d.uuid === c.uuid) === i);
  if (matches.length === 1) return matches[0].uuid;
  if (matches.length === 0) {
    throw new CliError('not_found', `no ${noun} of yours starts with "${ref.text}"`, { hint: `\`${cli} ${listCommand}\` lists them` });
  }
  const shown = matches.slice(0, SHOWN_MATCHES).map((m) => `${m.uuid} (${m.label})`);
  if (matches.length > SHOWN_MATCHES) shown.push(`and ${matches.length - SHOWN_MATCHES} more`);
  throw usageError(`"${ref.text}" matches ${matches.length} ${noun}s of yours: ${shown.join('; ')}`, 'type more of the uuid, enough to match one');
}

const tripLabel = (t: Trip) =>
  [t.car?.name, t.date_checkin === undefined ? undefined : formatLocal(t.date_checkin, t.car?.city), t.status].filter(Boolean).map((s) => clean(s)).join(', ');

/** A reservation uuid: as typed when whole; else the one reservation of the customer that starts with the prefix. */
export async function resolveReservation(api: Api, ref: UuidRef, cli = 'carrental'): Promise<string> {
  if (ref.whole) return ref.text;
  const trips = await customerTrips(api);
  return pick(ref, trips.flatMap((t) => (t.uuid ? [{ uuid: t.uuid, label: tripLabel(t) }] : [])), 'reservation', cli, 'trips');
}

/**
 * An invoice uuid: as typed when whole; else the one invoice, among the invoices of the
 * customer's reservations, that starts with the prefix (one read of the trips, then one of
 * each reservation's invoices: the invoice list, which, unlike the reservation, prepares nothing).
 */
export async function resolveInvoice(api: Api, ref: UuidRef, cli = 'carrental'): Promise<string> {
  if (ref.whole) return ref.text;
  const trips = (await customerTrips(api)).filter((t) => t.uuid);
  const invoices: Array<{ trip: Trip; invoice: Invoice }> = [];
  let next = 0;
  const worker = async () => {
    while (next < trips.length) {
      const trip = trips[next++];
      const list = trip.invoices ?? (await api.reservationInvoices(trip.uuid!)).data;
      for (const invoice of list) invoices.push({ trip, invoice });
    }
  };
  await Promise.all(Array.from({ length: Math.min(INVOICE_READS_AT_ONCE, trips.length) }, worker));
  const candidates = invoices.map(({ trip, invoice }) => ({
    uuid: invoice.id,
    label: `${clean(invoice.type)} ${clean(invoice.billing_status)} of reservation ${clean(trip.uuid)}`,
  }));
  return pick(ref, candidates, 'invoice', cli, 'invoices <reservation-uuid>');
}

async function customerTrips(api: Api): Promise<Trip[]> {
  const { data } = await api.trips();
  return [...data.active, ...data.history];
}
