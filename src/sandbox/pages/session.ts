// Sessions of the customer pages. A link authorizes nothing: a page acts for the customer
// who logged in here (the demo login picks one of the seeded customers), and every state
// change is a POST carrying the session's CSRF token. Sessions live in the memory of the
// sandbox process that served the login (a web app's sessions are not part of the API's
// state), so restarting the sandbox logs everyone out.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SandboxContext } from '../context.js';
import { type CustomerRec, type SandboxState, customerById } from '../state.js';
import type { Html } from './html.js';

export interface PageResult {
  title: string;
  body: Html;
  /** Shown a single time (a new API key). */
  once?: boolean;
}

export interface Session {
  id: string;
  customerId: string;
  csrf: string;
  expiresAt: number;
  /** Outcomes of confirmed actions, shown by /app/done/<id> after the POST redirects. */
  results: Map<string, PageResult>;
}

const SESSION_TTL_MS = 8 * 3600_000;
const MAX_SESSIONS = 1000;
const MAX_RESULTS = 20;

const registries = new WeakMap<SandboxContext, Map<string, Session>>();

function sessionsOf(ctx: SandboxContext): Map<string, Session> {
  let map = registries.get(ctx);
  if (!map) {
    map = new Map();
    registries.set(ctx, map);
  }
  return map;
}

/**
 * Cookies are not scoped by port, so two sandboxes on one host would overwrite each
 * other's cookie under a shared name: the port that answered is part of the name (not the
 * port of ctx.appUrl, which names another server when links point at `sandbox serve`).
 */
export function cookieName(req: IncomingMessage): string {
  return `carrental_sandbox_${req.socket.localPort ?? 0}`;
}

function readCookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export interface ActiveSession {
  session: Session;
  customer: CustomerRec;
}

/** The logged-in customer, or null (no cookie, unknown or expired session, customer gone). */
export function currentSession(ctx: SandboxContext, req: IncomingMessage, state: SandboxState): ActiveSession | null {
  const id = readCookie(req, cookieName(req));
  if (!id) return null;
  const sessions = sessionsOf(ctx);
  const session = sessions.get(id);
  if (!session) return null;
  if (session.expiresAt <= Date.now()) {
    sessions.delete(id);
    return null;
  }
  const customer = customerById(state, session.customerId);
  return customer ? { session, customer } : null;
}

/** A fresh session (a new id at every login, so a planted cookie is never promoted). */
export function createSession(ctx: SandboxContext, req: IncomingMessage, customerId: string): { session: Session; cookie: string } {
  const sessions = sessionsOf(ctx);
  if (sessions.size >= MAX_SESSIONS) {
    const oldest = sessions.keys().next().value;
    if (oldest !== undefined) sessions.delete(oldest);
  }
  const session: Session = {
    id: randomBytes(24).toString('base64url'),
    customerId,
    csrf: randomBytes(24).toString('base64url'),
    expiresAt: Date.now() + SESSION_TTL_MS,
    results: new Map(),
  };
  sessions.set(session.id, session);
  const cookie = `${cookieName(req)}=${session.id}; Path=/app; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_MS / 1000}`;
  return { session, cookie };
}

export function endSession(ctx: SandboxContext, req: IncomingMessage, session: Session): string {
  sessionsOf(ctx).delete(session.id);
  return `${cookieName(req)}=; Path=/app; HttpOnly; SameSite=Lax; Max-Age=0`;
}

export function csrfValid(session: Session, token: string | null): boolean {
  if (!token) return false;
  const a = Buffer.from(token);
  const b = Buffer.from(session.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A browser names the origin a form was posted from; a post from another site is refused
 * before the token is even looked at. The origin must be the one the request was sent to
 * (its Host), which is this server even when ctx.appUrl names `sandbox serve`'s. Clients
 * that send neither header (curl, tests) rely on the token alone.
 */
export function sameOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return req.headers.host !== undefined && origin === `http://${req.headers.host}`;
}

export function rememberResult(session: Session, result: PageResult): string {
  if (session.results.size >= MAX_RESULTS) {
    const oldest = session.results.keys().next().value;
    if (oldest !== undefined) session.results.delete(oldest);
  }
  const id = randomBytes(9).toString('base64url');
  session.results.set(id, result);
  return id;
}

/** Only paths of this application: never another host, nor a protocol-relative `//host`. */
export function safeNext(value: string | null | undefined): string {
  if (!value || !value.startsWith('/app') || value.startsWith('//') || /[\\\s]/.test(value)) return '/app/';
  const rest = value.slice('/app'.length);
  return rest === '' || rest.startsWith('/') || rest.startsWith('?') ? value : '/app/';
}
