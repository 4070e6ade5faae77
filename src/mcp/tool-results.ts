// What the MCP tools return, shaped for a model to read: compact trips and cars, link results
// with their next step, declined writes, and what a confirmation is bound to.
import type * as S from '../api/schemas.js';
import { journalBaseUrl } from '../booking/journaled-write.js';
import type { Target } from '../session/services.js';
import { zoneOf } from '../input/dates.js';
import { credentialFingerprint } from '../store/journal.js';
import { Confirmations } from './confirmation.js';
import { LINK_REMINDER } from './results.js';
import type { ToolDeps } from './tools.js';

/** What a confirmation is bound to besides the request: this API and this credential. */
export function binding(deps: ToolDeps, request: unknown): string {
  return Confirmations.binding([journalBaseUrl(deps.target), credentialFingerprint(deps.target.apiKey ?? ''), request]);
}

/** A write the customer declined in the host's form: nothing was sent. */
export const declined = (answer: 'decline' | 'cancel', what: string) => ({
  sent: false,
  confirmed_by: 'elicitation',
  customer_answer: answer,
  note: `The customer ${answer === 'decline' ? 'declined' : 'dismissed'} the confirmation: nothing was ${what}.`,
});

export const QUOTE_AGAIN = 'call quote again with the same arguments, show the customer the new total and deposit, and once they agree call reserve with the new confirmation';
export const READ_AGAIN = 'call get_trip for this reservation again, confirm the cancellation with the customer, and call cancel_reservation with its cancel_confirmation';

/** A note under the links of the embedded sandbox: its pages live as long as their server. */
function sandboxNote(target: Target): string | undefined {
  const e = target.embedded;
  if (!e) return undefined;
  if (e.links === 'shared') return `Sandbox: the page is served by the carrental sandbox already running on port ${e.linkPort} (same state file).`;
  const taken = e.stableTakenBy ? ` (port ${e.stablePort} is taken by ${e.stableTakenBy})` : '';
  return `Sandbox: this MCP server serves the page on port ${e.linkPort}${taken} for as long as it runs.`;
}

export function linkResult(action: S.ManualAction, target: Target, nextStep: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const note = sandboxNote(target);
  return { ...action, ...extra, reminder: LINK_REMINDER, next_step: nextStep, ...(note ? { note } : {}) };
}

export function pickFields(value: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (value[f] !== undefined) out[f] = value[f];
  return out;
}

/** A car as a trip names it. */
const carRef = (car: S.Car | undefined) => (car ? { car_alias: car.car_alias, name: car.name, city: car.city } : undefined);

/** A trip without the whole car (get_car has it) or invoice line items (list_invoices has them). */
export function compactTrip(trip: S.Trip): Record<string, unknown> {
  const { car, invoices, ...rest } = trip;
  return {
    ...rest,
    ...(car ? { car: carRef(car), time_zone: zoneOf(car.city) } : {}),
    ...(invoices ? { invoices: invoices.map(({ items: _items, status: _legacy, currency: _usd, ...inv }) => inv) } : {}),
  };
}

export const tripReminder = 'An unpaid reservation is not a paid booking and not a guaranteed hold.';
