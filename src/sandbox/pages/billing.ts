// Adding or replacing the saved card, which an `add_payment_card` link opens:
// /app/billing/card-add when no card is saved, /app/billing/cards when one is (the customer
// reviews it and may replace it). The form takes a test card number, keeps only the brand,
// the last four digits and the expiry, and saves through rules.ts (saveCard). Nothing is
// charged.
import { apiError } from '../errors.js';
import { saveCard } from '../rules.js';
import type { CardRec } from '../state.js';
import {
  type PageHandler,
  type PageReply,
  type PageRequest,
  confirming,
  csrfField,
  loginRequired,
  messagePage,
  page,
  refusePost,
  returnToAgent,
  showResult,
} from './core.js';
import { agentNote, flowField } from './flows.js';
import { type Html, cardExpiry, cardLabel, html } from './html.js';
import { safeNext } from './session.js';
import { customerIn } from './trips.js';

export interface ParsedCard {
  card_brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

function luhn(digits: string): boolean {
  let total = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    total += d;
  }
  return total % 10 === 0;
}

function brandOf(digits: string): string | null {
  if (/^3[47]\d{13}$/.test(digits)) return 'amex';
  if (/^4(\d{12}|\d{15}|\d{18})$/.test(digits)) return 'visa';
  const first4 = Number(digits.slice(0, 4));
  if (digits.length === 16 && (/^5[1-5]/.test(digits) || (first4 >= 2221 && first4 <= 2720))) return 'mastercard';
  if (digits.length === 16 && /^6(011|5)/.test(digits)) return 'discover';
  return null;
}

/** Validates the form as a card network would; the number itself is never stored. */
export function parseCardForm(form: URLSearchParams, now: Date): ParsedCard | string {
  const digits = (form.get('number') ?? '').replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(digits)) return 'Enter the card number (13 to 19 digits).';
  const brand = brandOf(digits);
  if (!brand) return 'Use a Visa, Mastercard, American Express or Discover card number.';
  if (!luhn(digits)) return 'This card number is not valid; check it for typos.';
  const month = Number(form.get('exp_month'));
  const year = Number(form.get('exp_year'));
  if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year)) return 'Choose the expiry month and year.';
  const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
  if (year * 12 + month < thisMonth) return 'This card has expired.';
  if (year > now.getUTCFullYear() + 20) return 'Check the expiry year.';
  const cvc = form.get('cvc') ?? '';
  if (!(brand === 'amex' ? /^\d{4}$/ : /^\d{3}$/).test(cvc)) return `Enter the ${brand === 'amex' ? '4' : '3'}-digit security code.`;
  return { card_brand: brand, last4: digits.slice(-4), exp_month: month, exp_year: year };
}

function cardForm(p: PageRequest, current: CardRec | null, problem: string | null): Html {
  const now = p.ctx.now(p.state);
  const year = now.getUTCFullYear();
  const months = Array.from({ length: 12 }, (_, i) => i + 1);
  const years = Array.from({ length: 11 }, (_, i) => year + i);
  const next = p.method === 'POST' ? p.form.get('next') : p.url.searchParams.get('next');
  return html`<form method="post" action="/app/billing/cards">${csrfField(p)}${flowField(p)}
${next ? html`<input type="hidden" name="next" value="${safeNext(next)}">` : ''}
${problem ? html`<div class="notice error" data-testid="problem">${problem}</div>` : ''}
<label for="number">Card number</label>
<input id="number" name="number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
<div class="row">
<div><label for="exp_month">Expiry month</label><select id="exp_month" name="exp_month">${months.map((m) => html`<option value="${m}">${String(m).padStart(2, '0')}</option>`)}</select></div>
<div><label for="exp_year">Expiry year</label><select id="exp_year" name="exp_year">${years.map((y, i) => html`<option value="${y}"${i === 3 ? html` selected` : ''}>${y}</option>`)}</select></div>
<div><label for="cvc">Security code</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required></div>
</div>
<p class="muted">Sandbox test numbers: 4242 4242 4242 4242 (Visa), 5555 5555 5555 4444 (Mastercard), 3782 822463 10005 (American Express). Only the brand, the last four digits and the expiry are kept.</p>
<div class="notice">${current ? html`Saving replaces <strong>${cardLabel(current)}</strong>. ` : ''}The card you save becomes the one card on your account: rent is charged to it and deposits are held on it. Nothing is charged now.</div>
<div class="actions"><button type="submit">${current ? 'Replace the card' : 'Save the card'}</button><a class="button secondary" href="/app/">Not now</a></div>
</form>`;
}

function cardPage(p: PageRequest, mode: 'add' | 'review', problem: string | null = null): PageReply {
  const customer = (p.auth as NonNullable<PageRequest['auth']>).customer;
  if (!customer.card_payments_enabled) {
    return messagePage(p, 403, 'Card payments are not enabled', 'Card payments are not enabled for this account, so no card can be added. Contact support.');
  }
  const card = customer.card;
  const note = agentNote(p, (f) => f.action === 'add_payment_card');
  const saved = card
    ? html`<h2>Saved card</h2><dl class="facts"><dt>Card</dt><dd data-testid="saved-card">${cardLabel(card)}</dd><dt>Expires</dt><dd>${cardExpiry(card)}</dd></dl><h2>Replace it</h2>`
    : html`<p>You have no saved card.</p>`;
  const title = mode === 'review' && card ? 'Your card' : card ? 'Replace your card' : 'Add a card';
  return page(p, problem ? 400 : 200, title, html`<section class="card"><h1>${title}</h1>${note}${mode === 'review' || card ? saved : ''}${cardForm(p, card, problem)}</section>`);
}

export const cardAddPage: PageHandler = (p) => (p.auth ? cardPage(p, 'add') : loginRequired(p));
export const cardsPage: PageHandler = (p) => (p.auth ? cardPage(p, 'review') : loginRequired(p));

export const cardPost: PageHandler = async (p) => {
  const refused = refusePost(p);
  if (refused) return refused;
  const customer = (p.auth as NonNullable<PageRequest['auth']>).customer;
  const parsed = parseCardForm(p.form, p.ctx.now(p.state));
  if (typeof parsed === 'string') return cardPage(p, customer.card ? 'review' : 'add', parsed);
  const next = p.form.get('next');
  return confirming(p, async () => {
    const { card, replaced } = await p.ctx.store.transact((draft) => {
      const current = customerIn(draft, customer.id);
      if (!current.card_payments_enabled) throw apiError('card_payments_not_enabled', 'Card payments are not enabled for this account; no card was saved.');
      const before = current.card;
      return { card: saveCard(draft, p.ctx.env(draft), current.id, parsed), replaced: before };
    });
    return showResult(
      p,
      'Card saved',
      html`<section class="card"><h1>Card saved</h1>
<div class="notice ok" data-testid="result"><strong>${cardLabel(card)}</strong>, expiring ${cardExpiry(card)}, is now the card on your account${replaced ? html`; it replaces ${cardLabel(replaced)}` : ''}.</div>
${next ? html`<div class="actions"><a class="button" href="${safeNext(next)}">Continue</a></div>` : ''}
${returnToAgent}</section>`,
    );
  });
};
