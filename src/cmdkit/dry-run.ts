// `--dry-run` of the writes (reserve, cancel, the three links, `api` with a non-GET method):
// the request the command would send, exactly as the client would build it (method, full
// URL, headers with the key masked, body), and for create and cancel what the journal
// would do with it. Printed instead of sending; nothing is written. Reads that come before
// the write (the quote, resolving a uuid prefix) still happen, as they would without it.
import type { ApiClient, RequestSpec } from '../api/client.js';
import { Api } from '../api/endpoints.js';
import type { Trip } from '../api/schemas.js';
import { CliError } from '../errors.js';
import type { Output } from '../render/output.js';
import type { JournalEntry } from '../store/journal.js';
import { formatAge } from '../booking/journaled-write.js';

export interface RequestPreview {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * What the journal would do with a create or cancel: `new` (a fresh key, made when it is
 * sent; none exists yet), `resume` a pending entry with its key, or `replay` a completed
 * one (within the replay window) whose key returns the original result.
 */
export type JournalDecision =
  | { decision: 'new'; key: string | null }
  | { decision: 'resume'; key: string; since: string; age: string; attempts: number }
  | { decision: 'replay'; key: string; done_at: string; age: string; result: string | null };

/** The placeholder shown for the Idempotency-Key of a new command: it is made as the request leaves. */
export const NEW_KEY = '<a new UUID v4, made when sent>';

export function journalDecision(entry: JournalEntry | undefined, now: Date, givenKey?: string): JournalDecision {
  if (!entry) return { decision: 'new', key: givenKey ?? null };
  if (entry.state === 'done') {
    const doneAt = entry.doneAt ?? entry.updatedAt;
    return { decision: 'replay', key: entry.key, done_at: doneAt, age: formatAge(now.getTime() - Date.parse(doneAt)), result: entry.result ?? null };
  }
  return { decision: 'resume', key: entry.key, since: entry.createdAt, age: formatAge(now.getTime() - Date.parse(entry.createdAt)), attempts: entry.attempts };
}

/** The key a write would carry under this decision, as the preview's header shows it. */
export function decisionKey(decision: JournalDecision): string {
  return decision.key ?? NEW_KEY;
}

/**
 * The request one call of `api` would send, built by the same endpoint function and the
 * same client (credential header, user agent, content type) but never sent. Throws what
 * the client would throw before sending (no key; a key over plain http).
 */
export async function previewOf(api: Api, call: (dry: Api) => Promise<unknown>): Promise<RequestPreview> {
  const specs: Array<RequestSpec<unknown>> = [];
  const recorder = {
    request(spec: RequestSpec<unknown>) {
      specs.push(spec);
      return Promise.resolve({ data: undefined, body: undefined, text: '', status: 0, headers: {} });
    },
  };
  await call(new Api(recorder as unknown as ApiClient, api.agentClient));
  if (specs.length !== 1) throw new Error(`a dry run expected one request, the call made ${specs.length}`);
  return api.client.describe(specs[0]);
}

export interface DryRun {
  /** The command, e.g. `reserve`. */
  command: string;
  request: RequestPreview;
  /** Create and cancel only; the links are not journaled. */
  journal?: JournalDecision;
  /** What else the dry run learnt or did (the quote, a read it made), one line each. */
  notes?: string[];
  /** More members of the JSON object (extend-link: the price preview as received). */
  extra?: Record<string, unknown>;
}

/**
 * A reservation for a dry run, from the trips list: reading the reservation itself
 * prepares a debt invoice when money is owed, and a dry run changes nothing. A uuid that
 * is not among the customer's trips is a 404, as the real run's read would be.
 */
export async function tripFromList(api: Api, uuid: string, cli: string): Promise<Trip> {
  const trips = (await api.trips()).data;
  const trip = [...(trips.active ?? []), ...(trips.history ?? [])].find((t) => t.uuid === uuid);
  if (!trip) throw new CliError('not_found', `no reservation ${uuid} among your trips`, { hint: `\`${cli} trips\` lists them` });
  return trip;
}

/**
 * A create or cancel with a key known to be read_only fails as the server would refuse it
 * (403 api_key_write_upgrade_required, exit 3). Known only for the embedded sandbox's demo
 * keys: elsewhere only a write tells (`carrental doctor` probes it without changing anything).
 */
export function refuseReadOnly(target: { capability?: string }): void {
  if (target.capability !== 'read_only') return;
  throw new CliError('auth', 'this API key is read_only: creating and cancelling reservations needs a booking_write key', {
    hint: 'create a booking_write key in your account settings, then run `carrental auth login` (the sandbox demo customer has one: `carrental sandbox keys`)',
  });
}

/** The links are not journaled: each call records a new handoff on the account. */
export const LINK_NOTE = 'links are not journaled: each request records a new handoff (agent_flow_id) on the account';

function describeDecision(d: JournalDecision): string {
  if (d.decision === 'new') return d.key ? `new: a new command, sent with the given idempotency key ${d.key}` : 'new: a new command; its idempotency key is made (and journaled) when it is sent';
  if (d.decision === 'resume') return `resume: a pending command from ${d.age} ago (${d.attempts} attempt${d.attempts === 1 ? '' : 's'}) whose outcome is unknown; it would be sent again with its key ${d.key}`;
  return `replay: this same command was answered ${d.age} ago${d.result ? ` (result ${d.result})` : ''}; it would replay key ${d.key} and get that same answer, nothing new`;
}

/**
 * One JSON object with --json (`dry_run: true`, the request, the journal's decision), else
 * words: the request on stdout as an HTTP client would write it, the decision and the
 * reminder that nothing was sent on stderr. Always exit 0.
 */
export function printDryRun(out: Output, dry: DryRun): number {
  if (out.json) {
    out.printJson({ dry_run: true, command: dry.command, request: dry.request, journal: dry.journal ?? null, notes: dry.notes ?? [], ...dry.extra });
  } else {
    const lines = [`${dry.request.method} ${dry.request.url}`, ...Object.entries(dry.request.headers).map(([k, v]) => `${k}: ${v}`)];
    if (dry.request.body !== undefined) lines.push('', JSON.stringify(dry.request.body, null, 2));
    for (const line of lines) out.line(line);
    for (const note of dry.notes ?? []) out.info(note);
    if (dry.journal) out.info(`journal: ${describeDecision(dry.journal)}`);
  }
  out.info(`dry run: nothing was sent and nothing was written; run the same command without --dry-run to ${dry.command === 'api' ? 'send it' : 'do it'}`);
  return 0;
}
