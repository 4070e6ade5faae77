// The demo login: the sandbox has no passwords, the visitor picks one of the seeded
// customers. Logging in only sets a session cookie; it changes nothing in the state.
import { type PageHandler, messagePage, page, redirect, refusePost } from './core.js';
import { html } from './html.js';
import { createSession, endSession, safeNext, sameOrigin } from './session.js';

/** What each demo customer is for, so the visitor picks the right one. */
const ROLES: Record<string, string> = {
  dana: 'the demo customer: trips in every state, a saved Visa card (the demo keys are hers)',
  omar: 'another customer: his trips are not yours (try a foreign link)',
  lee: 'driver’s licence pending, no saved card',
  sam: 'card payments not enabled for the account',
  pat: 'driver’s licence expired',
};

export const loginPage: PageHandler = (p) => {
  const next = safeNext(p.url.searchParams.get('next'));
  const current = p.auth ? html`<div class="notice">You are logged in as ${p.auth.customer.first_name} ${p.auth.customer.last_name}. Picking a customer here switches the account.</div>` : '';
  const choices = p.state.customers.map(
    (c, i) => html`<label class="choice"><input type="radio" name="customer" value="${c.handle}"${i === 0 ? html` checked` : ''}>
<span><strong>${c.first_name} ${c.last_name}</strong><span class="muted">${c.email} · ${ROLES[c.handle] ?? 'demo customer'}</span></span></label>`,
  );
  return page(
    p,
    200,
    'Log in',
    html`<section class="card"><h1>Log in</h1>
<p>Log in to continue. In the sandbox there are no passwords: choose a demo customer.</p>${current}
<form method="post" action="/app/login">
<input type="hidden" name="next" value="${next}">
<div class="choices">${choices}</div>
<div class="actions"><button type="submit">Log in</button></div>
</form></section>`,
  );
};

export const loginPost: PageHandler = (p) => {
  if (!sameOrigin(p.req)) return messagePage(p, 403, 'Refused', 'This form was sent from another site.');
  const handle = p.form.get('customer') ?? '';
  const customer = p.state.customers.find((c) => c.handle === handle);
  if (!customer) return messagePage(p, 400, 'Choose a customer', 'Pick one of the demo customers to log in.', { actions: html`<a class="button" href="/app/login">Back</a>` });
  const headers: Record<string, string> = {};
  if (p.auth) endSession(p.ctx, p.req, p.auth.session);
  headers['Set-Cookie'] = createSession(p.ctx, p.req, customer.id).cookie;
  return redirect(safeNext(p.form.get('next')), headers);
};

export const logoutPost: PageHandler = (p) => {
  if (!p.auth) return redirect('/app/login');
  const refused = refusePost(p);
  if (refused) return refused;
  return redirect('/app/login', { 'Set-Cookie': endSession(p.ctx, p.req, p.auth.session) });
};
