// Confirming an extension, which an `extend_reservation` link opens:
// /app/trips/<uuid>/modify[?checkout=YYYY-MM-DDTHH:MM]. The link's checkout is only the
// initial value of the form; the price is computed here from the state (priceExtension) and
// again when the customer confirms, and the dates move only then (extendCheckout), even when
// the extension costs nothing.
import { addDaysToDate } from '../clock.js';
import { ApiError, apiError } from '../errors.js';
import { effectiveStatus } from '../facts.js';
import { extendCheckout, priceExtension, reservationOf } from '../rules.js';
import type { ReservationRec } from '../state.js';
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
import { agentNote, flowField } from './flows.js';
import { type Html, html, localTime, money } from './html.js';
import { carOfTrip, customerIn, ownTrip } from './trips.js';

function notExtendable(p: PageRequest, r: ReservationRec, status: string): PageReply {
  const back = html`<a class="button secondary" href="/app/trips/${r.uuid}">View the trip</a>`;
  if (status === 'cancelled') return messagePage(p, 409, 'This reservation is cancelled', 'A cancelled reservation cannot be extended.', { actions: back });
  return messagePage(p, 400, 'This trip cannot be extended', `Only an upcoming or ongoing reservation can be extended; this one is ${status}.`, { actions: back });
}

export const modifyPage: PageHandler = (p) => {
  if (!p.auth) return loginRequired(p);
  const r = ownTrip(p.state, p.auth.customer, p.params[0]);
  if (!r) return notFoundPage(p, 'trip');
  const env = p.ctx.env(p.state);
  const status = effectiveStatus(r, env);
  if (status !== 'new') return notExtendable(p, r, status);
  const car = carOfTrip(p, r);

  const requested = p.url.searchParams.get('checkout');
  const target = requested ?? `${addDaysToDate(r.date_checkout.slice(0, 10), 1)}${r.date_checkout.slice(10)}`;
  let review: Html = html``;
  let problem: string | null = null;
  if (requested !== null) {
    try {
      const q = priceExtension(p.state, env, r, requested);
      review = html`<h2>Review</h2>
<table><tbody>
<tr><td>Return now</td><td class="num">${localTime(q.current_checkout, car.city)}</td></tr>
<tr><td>New return</td><td class="num">${localTime(q.new_checkout, car.city)}</td></tr>
<tr><td>Additional days</td><td class="num">${q.additional_days}</td></tr>
<tr class="total"><td>Extra cost</td><td class="num" data-testid="amount">${money(q.total_amount)}</td></tr>
</tbody></table>
${
  q.is_available
    ? html`<p>${q.total_amount > 0 ? html`Confirming adds an invoice of <strong>${money(q.total_amount)}</strong> to pay afterwards.` : 'This extension costs nothing extra, but the dates still change only when you confirm.'}</p>
<form method="post" action="/app/trips/${r.uuid}/modify">${csrfField(p)}
<input type="hidden" name="checkout" value="${q.new_checkout}">
<input type="hidden" name="amount_cents" value="${q.total_amount}">${flowField(p)}
<div class="actions"><button type="submit">Confirm the extension</button><a class="button secondary" href="/app/trips/${r.uuid}">Not now</a></div>
</form>`
    : html`<div class="notice error">The car is not available until ${localTime(q.new_checkout, car.city)}. Choose an earlier return.</div>`
}`;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      problem = err.description;
    }
  }

  return page(
    p,
    problem ? 400 : 200,
    'Extend your trip',
    html`<section class="card"><h1>Extend your trip</h1>
<dl class="facts"><dt>Car</dt><dd>${car.name}</dd><dt>Pick-up</dt><dd>${localTime(r.date_checkin, car.city)}</dd><dt>Return</dt><dd>${localTime(r.date_checkout, car.city)}</dd></dl>
${agentNote(p, (f) => f.action === 'extend_reservation' && f.reservation_uuid === r.uuid)}
<form method="get" action="/app/trips/${r.uuid}/modify">
${flowField(p)}<label for="checkout">New return (${car.timeZone})</label>
<input id="checkout" name="checkout" type="datetime-local" value="${target}" required>
${problem ? html`<div class="notice error" data-testid="problem">${problem}</div>` : ''}
<div class="actions"><button class="secondary" type="submit">${requested === null ? 'Show the price' : 'Update the price'}</button></div>
</form>${review}</section>`,
  );
};

export const modifyPost: PageHandler = async (p) => {
  const refused = refusePost(p);
  if (refused) return refused;
  const customer = (p.auth as NonNullable<PageRequest['auth']>).customer;
  const uuid = p.params[0];
  if (!ownTrip(p.state, customer, uuid)) return notFoundPage(p, 'trip');
  const checkout = p.form.get('checkout') ?? '';
  const reviewed = Number(p.form.get('amount_cents'));
  const reviewUrl = `/app/trips/${uuid.toLowerCase()}/modify?checkout=${encodeURIComponent(checkout)}`;
  if (!Number.isSafeInteger(reviewed)) return messagePage(p, 400, 'Incomplete form', 'The form is missing the reviewed price; open the page again.');

  return confirming(
    p,
    async () => {
      const outcome = await p.ctx.store.transact((draft) => {
        const env = p.ctx.env(draft);
        const r = reservationOf(draft, customerIn(draft, customer.id), uuid.toLowerCase());
        const status = effectiveStatus(r, env);
        if (r.status === 'cancelled') throw apiError('reservation_cancelled', 'The reservation is cancelled; its dates did not change.');
        if (status !== 'new') throw apiError('reservation_not_active', `Only an upcoming or ongoing reservation can be extended; this one is ${status}.`);
        const price = priceExtension(draft, env, r, checkout);
        if (price.total_amount !== reviewed) {
          throw apiError('invalid_checkout', `The price changed to ${money(price.total_amount)} since you reviewed ${money(reviewed)}; nothing changed. Review it again.`);
        }
        const from = r.date_checkout;
        const done = extendCheckout(draft, env, r.uuid, checkout);
        return { ...done, from, r: { ...r } };
      });
      const car = carOfTrip(p, outcome.r);
      const payUrl = `/app/trips/${outcome.r.uuid}?intent=pay&payment_type=reservation`;
      return showResult(
        p,
        'Trip extended',
        html`<section class="card"><h1>Trip extended</h1>
<div class="notice ok" data-testid="result">Your ${car.name} is now due back <strong>${localTime(outcome.new_checkout, car.city)}</strong> (it was ${localTime(outcome.from, car.city)}).</div>
${
  outcome.invoice_id
    ? html`<p>An invoice of <strong>${money(outcome.total_amount)}</strong> was added for the ${outcome.additional_days} extra day${outcome.additional_days === 1 ? '' : 's'}.</p>
<div class="actions"><a class="button" href="${payUrl}">Pay now</a></div>`
    : html`<p>The extension costs nothing extra.</p>`
}
${returnToAgent}<div class="actions"><a class="button secondary" href="/app/trips/${outcome.r.uuid}">View the trip</a></div></section>`,
      );
    },
    { href: reviewUrl, label: 'Review again' },
  );
};
