// The customer web application of the sandbox: every path under /app/ is served here —
// the pages ManualAction links open (paying rent or deposit, adding or replacing a card,
// confirming an extension), the API-key settings page, a demo login and the trips list.
// A link authorizes nothing: pages act for the customer logged in here, a GET never changes
// the state, and a confirmation is a POST with the session's CSRF token that changes the
// state only through the transitions of rules.ts inside ctx.store.transact.
// The pages themselves live in ./pages/; docs/sandbox.md describes them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from './context.js';
import { readBody } from './http.js';
import { cardAddPage, cardPost, cardsPage } from './pages/billing.js';
import { type PageHandler, type PageReply, type PageRequest, donePage, messagePage, notFoundPage } from './pages/core.js';
import { loginPage, loginPost, logoutPost } from './pages/login.js';
import { modifyPage, modifyPost } from './pages/modify.js';
import { currentSession } from './pages/session.js';
import { apiKeysPage, apiKeysPost } from './pages/settings.js';
import { homePage, payPost, tripRoute } from './pages/trips.js';

export interface PageRoute {
  /** The paths it answers; `{name}` is one path segment, handed to the handler in order. */
  paths: string[];
  GET?: PageHandler;
  POST?: PageHandler;
}

/** Exported for the test that walks every GET route (test/sandbox/head.test.ts). */
export const PAGE_ROUTES: PageRoute[] = [
  { paths: ['/app', '/app/', '/app/trips', '/app/trips/'], GET: homePage },
  { paths: ['/app/login'], GET: loginPage, POST: loginPost },
  { paths: ['/app/logout'], POST: logoutPost },
  { paths: ['/app/trips/{uuid}'], GET: tripRoute },
  { paths: ['/app/trips/{uuid}/pay'], POST: payPost },
  { paths: ['/app/trips/{uuid}/modify'], GET: modifyPage, POST: modifyPost },
  { paths: ['/app/billing/card-add'], GET: cardAddPage },
  { paths: ['/app/billing/cards'], GET: cardsPage, POST: cardPost },
  { paths: ['/app/settings/api-keys'], GET: apiKeysPage, POST: apiKeysPost },
  { paths: ['/app/done/{id}'], GET: donePage },
];

const COMPILED = PAGE_ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^(?:${route.paths.map((p) => p.replace(/\{\w+\}/g, '([^/]+)')).join('|')})$`),
}));

/** No script runs on these pages; nothing may frame them (a confirm button must not be clickjacked). */
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // agent_flow_id rides in the query string; not a secret, but it stays on this site. (Not
  // no-referrer: under it browsers post forms with `Origin: null`, which the origin check refuses.)
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

export async function handlePage(req: IncomingMessage, res: ServerResponse, ctx: SandboxContext): Promise<void> {
  const started = Date.now();
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const body = await readBody(req);
  const state = ctx.store.read();
  const p: PageRequest = {
    ctx,
    req,
    method: method === 'POST' ? 'POST' : 'GET',
    url,
    params: [],
    form: method === 'POST' ? new URLSearchParams(body.text) : new URLSearchParams(),
    state,
    auth: currentSession(ctx, req, state),
  };

  let reply: PageReply;
  const compiled = COMPILED.find((r) => r.pattern.test(url.pathname));
  const route = compiled?.route;
  if (!route) {
    reply = notFoundPage(p);
  } else if (method !== 'GET' && method !== 'POST') {
    reply = methodNotAllowed(p, route);
  } else if (body.tooLarge) {
    reply = messagePage(p, 413, 'Too large', 'The form is larger than the sandbox accepts.');
  } else {
    const handler = route[method];
    if (!handler) {
      reply = methodNotAllowed(p, route);
    } else {
      p.params = (compiled!.pattern.exec(url.pathname) ?? [])
        .slice(1)
        .filter((s) => s !== undefined)
        .map((s) => safeDecode(s));
      reply = await handler(p);
    }
  }

  const headers: Record<string, string> = { ...SECURITY_HEADERS, ...reply.headers };
  if (reply.location) headers.Location = reply.location;
  const text = reply.html ?? '';
  headers['Content-Type'] = 'text/html; charset=utf-8';
  headers['Content-Length'] = String(Buffer.byteLength(text));
  res.writeHead(reply.status, headers);
  res.end(text);
  if (!ctx.quiet) console.error(`sandbox: ${req.method} ${url.pathname}${url.search} -> ${reply.status} page (${Date.now() - started} ms)`);
}

function methodNotAllowed(p: PageRequest, route: PageRoute): PageReply {
  const allowed = (['GET', 'POST'] as const).filter((m) => route[m]);
  const reply = messagePage(p, 405, 'Not allowed', `This page accepts ${allowed.join(' and ')} only.`);
  return { ...reply, headers: { Allow: allowed.map((m) => (m === 'GET' ? 'GET, HEAD' : m)).join(', ') } };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
