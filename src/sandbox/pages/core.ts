// What every page handler works with: the request (its form already read), the state as it
// was when the request arrived, the logged-in customer, and the ways to answer.
import type { IncomingMessage } from 'node:http';
import type { SandboxContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { SandboxState } from '../state.js';
import { type Html, html, layout } from './html.js';
import { type ActiveSession, csrfValid, rememberResult, sameOrigin } from './session.js';

export interface PageRequest {
  ctx: SandboxContext;
  req: IncomingMessage;
  /** GET (also for HEAD) or POST. */
  method: 'GET' | 'POST';
  url: URL;
  /** Path parameters of the route. */
  params: string[];
  /** The urlencoded body of a POST; empty for GET. */
  form: URLSearchParams;
  /** Read once when the request arrived; a confirmation re-reads inside its transaction. */
  state: SandboxState;
  auth: ActiveSession | null;
}

export interface PageReply {
  status: number;
  html?: string;
  location?: string;
  headers?: Record<string, string>;
}

export type PageHandler = (p: PageRequest) => PageReply | Promise<PageReply>;

export function page(p: PageRequest, status: number, title: string, body: Html): PageReply {
  return { status, html: layout({ title, body, customer: p.auth?.customer ?? null, csrf: p.auth?.session.csrf }) };
}

/** 303: after a POST the browser follows with a GET, so reloading never re-submits. */
export const redirect = (location: string, headers?: Record<string, string>): PageReply => ({ status: 303, location, headers });

export function messagePage(
  p: PageRequest,
  status: number,
  title: string,
  message: Html | string,
  opts: { kind?: 'error' | 'warn' | 'ok'; actions?: Html } = {},
): PageReply {
  return page(
    p,
    status,
    title,
    html`<section class="card"><h1>${title}</h1><div class="notice ${opts.kind ?? 'error'}">${message}</div>${opts.actions ? html`<div class="actions">${opts.actions}</div>` : ''}</section>`,
  );
}

export function notFoundPage(p: PageRequest, what = 'page'): PageReply {
  const who = p.auth ? html` You are logged in as ${p.auth.customer.first_name} ${p.auth.customer.last_name}; if the link was meant for another account, log out and log in as that customer.` : '';
  return messagePage(p, 404, 'Not found', html`There is no ${what} here.${who}`, {
    actions: html`<a class="button secondary" href="/app/">Your trips</a>`,
  });
}

/** An ApiError from a rules.ts transition, shown as a page with the same status. */
export function apiErrorPage(p: PageRequest, err: ApiError, back?: { href: string; label: string }): PageReply {
  if (err.code === 'reservation_not_found') return notFoundPage(p, 'trip');
  const actions = html`${back ? html`<a class="button secondary" href="${back.href}">${back.label}</a>` : ''}<a class="button secondary" href="/app/">Your trips</a>`;
  return messagePage(p, err.status, err.message, err.description, { actions });
}

/** Runs a confirmation; an ApiError becomes its page, anything else is a server error. */
export async function confirming(p: PageRequest, run: () => Promise<PageReply>, back?: { href: string; label: string }): Promise<PageReply> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiError) return apiErrorPage(p, err, back);
    throw err;
  }
}

/** Pages act only for a logged-in customer: a GET goes to the login and comes back. */
export function loginRequired(p: PageRequest): PageReply {
  if (p.method === 'GET') return redirect(`/app/login?next=${encodeURIComponent(p.url.pathname + p.url.search)}`);
  return messagePage(p, 401, 'Please log in', 'Your session has ended, so nothing was changed. Open the link again and log in.', {
    actions: html`<a class="button" href="/app/login">Log in</a>`,
  });
}

/** Origin and CSRF token of a confirmation; a reply when the post must be refused. */
export function refusePost(p: PageRequest): PageReply | null {
  if (!sameOrigin(p.req)) {
    return messagePage(p, 403, 'Refused', 'This form was sent from another site, so nothing was changed.');
  }
  if (!p.auth) return loginRequired(p);
  if (!csrfValid(p.auth.session, p.form.get('csrf'))) {
    return messagePage(p, 403, 'Refused', 'This form is out of date (or did not come from this page), so nothing was changed. Open the page again and confirm there.');
  }
  return null;
}

export function csrfField(p: PageRequest): Html {
  return html`<input type="hidden" name="csrf" value="${p.auth?.session.csrf ?? ''}">`;
}

/** Shows the outcome on /app/done/<id> after the POST that produced it. */
export function showResult(p: PageRequest, title: string, body: Html, once = false): PageReply {
  if (!p.auth) throw new Error('a result needs a session');
  const id = rememberResult(p.auth.session, { title, body, once });
  return redirect(`/app/done/${id}`);
}

export const donePage: PageHandler = (p) => {
  if (!p.auth) return loginRequired(p);
  const id = p.params[0];
  const result = p.auth.session.results.get(id);
  if (!result) return notFoundPage(p, 'result (results are kept for this session only)');
  // a HEAD shows the page's headers without using the page up (HEAD is safe, RFC 9110)
  if (result.once && p.req.method !== 'HEAD') p.auth.session.results.delete(id);
  const notice = p.ctx.donePageNotice;
  return page(p, 200, result.title, notice ? html`${result.body}<div class="notice warn" data-testid="served-until">${notice}</div>` : result.body);
};

/** The closing words of every confirmation: the agent learns the outcome by reading again. */
export const returnToAgent = html`<p>You can close this page and go back to your agent or terminal. The agent is not notified: it learns the outcome by reading your reservation or account again (for example <code>carrental --sandbox trips &lt;uuid&gt;</code>).</p>`;
