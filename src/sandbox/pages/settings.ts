// The API-key settings page, where the 403 api_key_write_upgrade_required description
// points: /app/settings/api-keys. Keys are created here by the customer, never through the
// API (Authentication rule 5). A new key is shown once; the list shows keys masked.
import { randomBytes } from 'node:crypto';
import type { Capability } from '../../api/operations.js';
import { apiError } from '../errors.js';
import { type ApiKeyRec, type SandboxState, forgetIndexes } from '../state.js';
import {
  type PageHandler,
  type PageRequest,
  confirming,
  csrfField,
  loginRequired,
  messagePage,
  page,
  refusePost,
  showResult,
} from './core.js';
import { html } from './html.js';
import { customerIn } from './trips.js';

const MAX_ACTIVE_KEYS = 20;

const mask = (key: string) => `svc_…${key.slice(-4)}`;

/** The settings page's own transition: a new active key of the customer. */
export function createApiKey(draft: SandboxState, customerId: string, capability: Capability): ApiKeyRec {
  const customer = customerIn(draft, customerId);
  if (customer.keys.filter((k) => !k.revoked).length >= MAX_ACTIVE_KEYS) {
    throw apiError('invalid_request', `An account has at most ${MAX_ACTIVE_KEYS} active keys.`);
  }
  const rec: ApiKeyRec = { key: `svc_${randomBytes(16).toString('hex')}`, capability, revoked: false };
  customer.keys.push(rec);
  forgetIndexes(draft);
  return rec;
}

export const apiKeysPage: PageHandler = (p) => {
  if (!p.auth) return loginRequired(p);
  const keys = p.auth.customer.keys;
  const hasWrite = keys.some((k) => !k.revoked && k.capability === 'booking_write');
  return page(
    p,
    200,
    'API keys',
    html`<section class="card"><h1>API keys</h1>
<p>Agents and the <code>carrental</code> CLI act for you with an API key. There are two kinds:</p>
<ul><li><strong>read_only</strong>: profile, verification, trips and costs, invoices, the masked card, and links for you to pay, add a card or extend.</li>
<li><strong>booking_write</strong>: all of that, plus creating and cancelling reservations (cancelling can charge a fee under the normal rules).</li></ul>
<p class="muted">No key can pay, charge, refund, add or remove a card, extend a trip or manage keys: you do those on these pages.</p>
${hasWrite ? '' : html`<div class="notice warn">A read_only key cannot create or cancel reservations. Create a booking_write key below to let an agent book for you.</div>`}
<h2>Your keys</h2>
<table><thead><tr><th>Key</th><th>Capability</th><th>State</th></tr></thead><tbody>
${keys.map((k) => html`<tr><td><code>${mask(k.key)}</code></td><td>${k.capability}</td><td>${k.revoked ? html`<span class="status err">revoked</span>` : html`<span class="status ok">active</span>`}</td></tr>`)}
</tbody></table>
<h2>Create a key</h2>
<form method="post" action="/app/settings/api-keys">${csrfField(p)}
<label for="capability">Capability</label>
<select id="capability" name="capability"><option value="booking_write">booking_write</option><option value="read_only">read_only</option></select>
<div class="actions"><button type="submit">Create the key</button></div>
</form></section>`,
  );
};

export const apiKeysPost: PageHandler = async (p) => {
  const refused = refusePost(p);
  if (refused) return refused;
  const capability = p.form.get('capability');
  if (capability !== 'read_only' && capability !== 'booking_write') {
    return messagePage(p, 400, 'Choose a capability', 'A key is read_only or booking_write.', { actions: html`<a class="button" href="/app/settings/api-keys">Back</a>` });
  }
  const customerId = (p.auth as NonNullable<PageRequest['auth']>).customer.id;
  return confirming(p, async () => {
    const rec = await p.ctx.store.transact((draft) => createApiKey(draft, customerId, capability));
    return showResult(
      p,
      'Key created',
      html`<section class="card"><h1>Key created</h1>
<div class="notice ok">Your new <strong>${rec.capability}</strong> key (shown only this once; copy it now):</div>
<p><code data-testid="new-key">${rec.key}</code></p>
<p>Use it with the CLI: <code>carrental --sandbox auth login --with-key</code> (paste it on standard input) or <code>CARRENTAL_API_KEY=…</code>. Never paste it into a command line.</p>
<div class="actions"><a class="button secondary" href="/app/settings/api-keys">Back to your keys</a></div></section>`,
      true,
    );
  });
};
