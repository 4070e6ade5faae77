// The trips pages: the list, one trip, and paying rent or the deposit, which a
// `pay_reservation` link opens: /app/trips/<uuid>?intent=pay&payment_type=reservation|deposit.
// The review reads the amounts from the state (never from the link); the confirmation
// re-reads them in its transaction and pays through rules.ts (payRentInvoice,
// placeDepositHold) only if they are still what the customer reviewed.
import type { CarRec } from '../fleet.js';
import { apiError } from '../errors.js';
import { effectiveStatus } from '../facts.js';
import { payRentInvoice, placeDepositHold, reservationOf } from '../rules.js';
import { type CustomerRec, type InvoiceRec, type ReservationRec, type SandboxState, invoicesOf, reservationsOf } from '../state.js';
import {
  type PageHandler,
  type PageReply,
  type PageRequest,
  confirming,
  csrfField,
  loginRequired,
  messagePage,
  notFoundPage,
  page,
  refusePost,
  returnToAgent,
  showResult,
} from './core.js';
import { type Html, cardLabel, html, localTime, money } from './html.js';
import { agentNote, flowField } from './flows.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type PagePaymentType = 'reservation' | 'deposit';

export function carOfTrip(p: PageRequest, r: ReservationRec): CarRec {
  const car = p.ctx.env(p.state).fleet.byId.get(r.car_id);
  if (!car) throw new Error(`reservation ${r.uuid} refers to car ${r.car_id}, which is not in the fleet`);
  return car;
}

/** The customer's own reservation, or null: a foreign one is as unknown as a missing one. */
export function ownTrip(state: SandboxState, customer: CustomerRec, uuid: string): ReservationRec | null {
  if (!UUID_RE.test(uuid)) return null;
  const r = state.reservations[uuid.toLowerCase()];
  return r && r.customer_id === customer.id ? r : null;
}

/** The charges rules.ts counts in the balance (its balanceOf; test/sandbox/pages.test.ts checks they agree). */
const RENT_CHARGES: ReadonlySet<string> = new Set(['RENT', 'EXTEND', 'FEE_RENT']);

/** What a payment of that type would settle: ISSUED charges for rent, the ISSUED deposit. */
export function dueInvoices(invoices: readonly InvoiceRec[], type: PagePaymentType): InvoiceRec[] {
  return invoices.filter((i) =>
    i.billing_status === 'ISSUED' && (type === 'deposit' ? i.type === 'DEPOSIT' : RENT_CHARGES.has(i.type)),
  );
}

const sum = (invoices: readonly InvoiceRec[]) => invoices.reduce((s, i) => s + i.amount, 0);

function statusBadge(status: string): Html {
  const kind = status === 'new' ? 'ok' : status === 'cancelled' ? 'err' : '';
  return html`<span class="status ${kind}">${status}</span>`;
}

function tripFacts(p: PageRequest, r: ReservationRec, status: string): Html {
  const car = carOfTrip(p, r);
  return html`<dl class="facts">
<dt>Car</dt><dd>${car.name}</dd>
<dt>Pick-up</dt><dd>${localTime(r.date_checkin, car.city)}</dd>
<dt>Return</dt><dd>${localTime(r.date_checkout, car.city)}</dd>
<dt>Status</dt><dd>${statusBadge(status)}</dd>
<dt>Reservation</dt><dd><code>${r.uuid}</code></dd>
</dl>`;
}

// ---------------------------------------------------------------- list and detail

export const homePage: PageHandler = (p) => {
  if (!p.auth) return loginRequired(p);
  const env = p.ctx.env(p.state);
  const trips = reservationsOf(p.state, p.auth.customer.id);
  const row = (r: ReservationRec) => {
    const car = carOfTrip(p, r);
    const owed = sum(dueInvoices(invoicesOf(p.state, r.uuid), 'reservation'));
    return html`<li><a href="/app/trips/${r.uuid}">${car.name}</a> ${statusBadge(effectiveStatus(r, env))}
<div class="muted">${localTime(r.date_checkin, car.city)} → ${r.date_checkout.replace('T', ' ')}${owed > 0 ? html` · <strong>${money(owed)} due</strong>` : ''}</div></li>`;
  };
  const active = trips.filter((r) => effectiveStatus(r, env) === 'new').sort((a, b) => a.date_checkin.localeCompare(b.date_checkin));
  const history = trips.filter((r) => effectiveStatus(r, env) !== 'new').sort((a, b) => b.date_checkin.localeCompare(a.date_checkin));
  const card = p.auth.customer.card;
  return page(
    p,
    200,
    'Your trips',
    html`<section class="card"><h1>Hello, ${p.auth.customer.first_name}</h1>
<p class="muted">Saved card: ${card ? cardLabel(card) : 'none'} · <a href="/app/billing/cards">manage</a></p>
<h2>Upcoming</h2>${active.length ? html`<ul class="plain">${active.map(row)}</ul>` : html`<p class="muted">No upcoming trips.</p>`}
<h2>History</h2>${history.length ? html`<ul class="plain">${history.map(row)}</ul>` : html`<p class="muted">No past trips.</p>`}
</section>`,
  );
};

function invoiceTable(invoices: readonly InvoiceRec[]): Html {
  if (invoices.length === 0) return html`<p class="muted">No invoices.</p>`;
  const sorted = [...invoices].sort((a, b) => a.created_at.localeCompare(b.created_at));
  return html`<table><thead><tr><th>Invoice</th><th>State</th><th class="num">Amount</th></tr></thead><tbody>
${sorted.map((i) => html`<tr><td>${i.type} · ${i.description}<div class="muted">${i.created_at.replace('T', ' ')} UTC</div></td><td>${i.billing_status}</td><td class="num">${money(i.amount)}</td></tr>`)}
</tbody></table>`;
}

function tripPage(p: PageRequest, r: ReservationRec): PageReply {
  const env = p.ctx.env(p.state);
  const status = effectiveStatus(r, env);
  const invoices = invoicesOf(p.state, r.uuid);
  const rent = sum(dueInvoices(invoices, 'reservation'));
  const deposit = dueInvoices(invoices, 'deposit');
  const actions: Html[] = [];
  if (r.status !== 'cancelled' && rent > 0) actions.push(html`<a class="button" href="/app/trips/${r.uuid}?intent=pay&amp;payment_type=reservation">Pay ${money(rent)}</a>`);
  if (r.status !== 'cancelled' && deposit.length) actions.push(html`<a class="button secondary" href="/app/trips/${r.uuid}?intent=pay&amp;payment_type=deposit">Authorize the deposit</a>`);
  if (status === 'new') actions.push(html`<a class="button secondary" href="/app/trips/${r.uuid}/modify">Extend the trip</a>`);
  return page(
    p,
    200,
    carOfTrip(p, r).name,
    html`<section class="card"><h1>${carOfTrip(p, r).name}</h1>${tripFacts(p, r, status)}
<h2>Invoices</h2>${invoiceTable(invoices)}
${actions.length ? html`<div class="actions">${actions}</div>` : ''}</section>`,
  );
}

export const tripRoute: PageHandler = (p) => {
  if (!p.auth) return loginRequired(p);
  const r = ownTrip(p.state, p.auth.customer, p.params[0]);
  if (!r) return notFoundPage(p, 'trip');
  if (p.url.searchParams.get('intent') === 'pay') return payReview(p, r);
  return tripPage(p, r);
};

// ---------------------------------------------------------------- paying

function paymentTypeOf(value: string | null): PagePaymentType | null {
  return value === 'reservation' || value === 'deposit' ? value : null;
}

const WHAT: Record<PagePaymentType, string> = { reservation: 'rent', deposit: 'deposit' };

/** The reasons a payment cannot go ahead, in the order the API reports them. */
function payBlocker(p: PageRequest, r: ReservationRec, type: PagePaymentType, due: readonly InvoiceRec[]): PageReply | null {
  const back = html`<a class="button secondary" href="/app/trips/${r.uuid}">View the trip</a>`;
  if (r.status === 'cancelled') {
    return messagePage(p, 409, 'This reservation is cancelled', 'A cancelled reservation cannot be paid. Nothing was charged.', { actions: back });
  }
  if (due.length === 0) {
    return messagePage(
      p,
      409,
      'Nothing to pay',
      type === 'deposit' ? 'No deposit is due on this reservation: it is already authorized or not required.' : 'Nothing is owed on this reservation: the rent is already paid.',
      { kind: 'ok', actions: back },
    );
  }
  return null;
}

function payReview(p: PageRequest, r: ReservationRec): PageReply {
  const customer = (p.auth as NonNullable<PageRequest['auth']>).customer;
  const type = paymentTypeOf(p.url.searchParams.get('payment_type'));
  if (!type) {
    return messagePage(p, 400, 'Unknown payment', 'This link names no payment this page knows (payment_type must be reservation or deposit).', {
      actions: html`<a class="button secondary" href="/app/trips/${r.uuid}">View the trip</a>`,
    });
  }
  const due = dueInvoices(invoicesOf(p.state, r.uuid), type);
  const blocked = payBlocker(p, r, type, due);
  if (blocked) return blocked;
  const amount = sum(due);
  const car = carOfTrip(p, r);
  const here = `/app/trips/${r.uuid}?${p.url.searchParams.toString()}`;
  const flow = agentNote(p, (f) => f.action === 'pay_reservation' && f.reservation_uuid === r.uuid);

  let payWith: Html;
  if (!customer.card_payments_enabled) {
    payWith = html`<div class="notice error">Card payments are not enabled for this account, so this cannot be paid online. Nothing was charged.</div>`;
  } else if (!customer.card) {
    payWith = html`<div class="notice warn">You have no saved card. Add one first; you come back here afterwards.</div>
<div class="actions"><a class="button" href="/app/billing/card-add?next=${encodeURIComponent(here)}">Add a card</a></div>`;
  } else {
    const verb = type === 'deposit' ? `Authorize ${money(amount)}` : `Pay ${money(amount)}`;
    payWith = html`<p>${type === 'deposit' ? 'The hold is placed on' : 'Charged to'} <strong>${cardLabel(customer.card)}</strong>.</p>
<form method="post" action="/app/trips/${r.uuid}/pay">${csrfField(p)}
<input type="hidden" name="payment_type" value="${type}">
<input type="hidden" name="amount_cents" value="${amount}">${flowField(p)}
<div class="actions"><button type="submit">${verb}</button><a class="button secondary" href="/app/trips/${r.uuid}">Not now</a></div>
</form>`;
  }

  const explain =
    type === 'deposit'
      ? html`<p>The refundable deposit is a <strong>hold</strong> on your card (an authorization), not a charge. It is released after the trip, or when the reservation is cancelled.</p>`
      : html`<p>Paying the rent books the car for these dates. The refundable deposit is separate and is not included.</p>`;
  return page(
    p,
    200,
    type === 'deposit' ? 'Authorize the deposit' : 'Pay the rent',
    html`<section class="card"><h1>${type === 'deposit' ? 'Authorize the deposit' : 'Pay the rent'}</h1>
${tripFacts(p, r, effectiveStatus(r, p.ctx.env(p.state)))}
<table><thead><tr><th>What you ${type === 'deposit' ? 'authorize' : 'pay'}</th><th class="num">Amount</th></tr></thead><tbody>
${due.flatMap((i) => i.items.map((item) => html`<tr><td>${item.description}</td><td class="num">${money(item.amount)}</td></tr>`))}
<tr class="total"><td>Total</td><td class="num">${money(amount)}</td></tr></tbody></table>
<p class="due">${type === 'deposit' ? 'To authorize now' : 'Due now'}</p><p class="amount" data-testid="amount">${money(amount)}</p>
${explain}${flow}${payWith}</section>`,
  );
}

export const payPost: PageHandler = async (p) => {
  const refused = refusePost(p);
  if (refused) return refused;
  const customer = (p.auth as NonNullable<PageRequest['auth']>).customer;
  const uuid = p.params[0];
  if (!ownTrip(p.state, customer, uuid)) return notFoundPage(p, 'trip');
  const type = paymentTypeOf(p.form.get('payment_type'));
  const reviewed = Number(p.form.get('amount_cents'));
  if (!type || !Number.isSafeInteger(reviewed)) return messagePage(p, 400, 'Incomplete form', 'The form is missing its payment details; open the link again.');
  const reviewUrl = `/app/trips/${uuid.toLowerCase()}?intent=pay&payment_type=${type}`;
  const back = { href: reviewUrl, label: 'Review again' };

  return confirming(
    p,
    async () => {
      const outcome = await p.ctx.store.transact((draft) => {
        const env = p.ctx.env(draft);
        const current = customerIn(draft, customer.id);
        const r = reservationOf(draft, current, uuid.toLowerCase());
        if (r.status === 'cancelled') throw apiError('reservation_cancelled', 'The reservation is cancelled; nothing was charged.');
        const due = dueInvoices(invoicesOf(draft, r.uuid), type);
        if (due.length === 0) throw apiError('nothing_to_pay', type === 'deposit' ? 'No deposit is due on this reservation any more.' : 'Nothing is owed on this reservation any more.');
        if (!current.card_payments_enabled) throw apiError('card_payments_not_enabled', 'Card payments are not enabled for this account; nothing was charged.');
        if (!current.card) throw apiError('invalid_request', 'There is no saved card to pay with; add one and review again.');
        if (sum(due) !== reviewed) throw new AmountChanged(sum(due));
        const card = current.card;
        if (type === 'deposit') {
          const held = placeDepositHold(draft, env, r.uuid);
          return { amount: held.held_cents, card, r: { ...r } };
        }
        const paid = payRentInvoice(draft, env, r.uuid);
        return { amount: paid.paid_cents, card, r: { ...r } };
      });
      const car = carOfTrip(p, outcome.r);
      const title = type === 'deposit' ? 'Deposit authorized' : 'Payment complete';
      const what =
        type === 'deposit'
          ? html`A hold of <strong>${money(outcome.amount)}</strong> is placed on ${cardLabel(outcome.card)} for the refundable deposit.`
          : html`<strong>${money(outcome.amount)}</strong> was charged to ${cardLabel(outcome.card)} for the rent.`;
      return showResult(
        p,
        title,
        html`<section class="card"><h1>${title}</h1><div class="notice ok" data-testid="result">${what}</div>
<p>${car.name}, ${localTime(outcome.r.date_checkin, car.city)} to ${localTime(outcome.r.date_checkout, car.city)}.</p>
${returnToAgent}<div class="actions"><a class="button secondary" href="/app/trips/${outcome.r.uuid}">View the trip</a></div></section>`,
      );
    },
    back,
  ).catch((err: unknown) => {
    if (!(err instanceof AmountChanged)) throw err;
    return messagePage(p, 409, 'The amount changed', html`The amount due is now <strong>${money(err.amount)}</strong>, not the ${money(reviewed)} you reviewed. Nothing was charged: review it again.`, {
      kind: 'warn',
      actions: html`<a class="button" href="${reviewUrl}">Review again</a>`,
    });
  });
};

/** The confirmed amount differs from the reviewed one: the customer must see it first. */
class AmountChanged extends Error {
  constructor(readonly amount: number) {
    super('amount changed');
  }
}

export function customerIn(state: SandboxState, id: string): CustomerRec {
  const c = state.customers.find((x) => x.id === id);
  if (!c) throw apiError('invalid_credentials', 'The customer of this session no longer exists; log in again.');
  return c;
}
