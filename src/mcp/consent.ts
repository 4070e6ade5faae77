// The one rule by which reserve and cancel_reservation may write (docs/agents.md, "What the
// host's question proves"):
//
// - a retry of a write already made or still unsettled (the journal holds it under the key of
//   the confirmation given) finishes or replays it: nothing new is written, nobody is asked;
// - when the host can ask its user, the customer is asked, whatever token the agent passed: a
//   token proves only that the request matches a quote, not that the customer agreed. Only an
//   accepted answer writes; a declined or dismissed one writes nothing and says so;
// - a host that cannot ask: refused when the server requires the customer, else the token
//   is the proof, and it must be fresh (and, for a booking, the price still the confirmed one).
import { CONFIRMATION_MINUTES, type ConfirmedOperation, type Opened, ToolError } from './confirmation.js';
import { cleanString } from './results.js';
import { declined } from './tool-results.js';
import type { ToolDeps } from './tools.js';

export interface WriteRequest {
  op: ConfirmedOperation;
  /** What the confirmation is bound to (tool-results.ts binding()). */
  bound: string;
  /** The token the agent passed, if any. */
  confirmation?: string;
  /** The next step when the token is refused: quote again, read the trip again. */
  again: string;
  /** The journal's entry for this same write, when there is one. */
  journaled?: { key: string; state: string };
  /** The key of a booking already made (book_another): a token that wrote it cannot write another. */
  spentKey?: string;
  /** The question for the customer, built only when they are asked. */
  form(): Promise<{ message: string; amounts?: { total?: number; deposit?: number } }>;
  /** The checks a token alone needs before a new write (reserve: the price is still the confirmed one). */
  fresh?(opened: Opened): Promise<void>;
}

export type Consent =
  | { ok: true; key: string; confirmedBy: 'confirmation' | 'elicitation' }
  | { ok: false; result: Record<string, unknown> };

const PAST = { reserve: 'booked', cancel: 'cancelled' } as const;
const TOOL = { reserve: 'reserve', cancel: 'cancel_reservation' } as const;

/** A form's text as the human sees it: one line, no escapes, controls or direction overrides. */
export function formText(text: string): string {
  return cleanString(text).replace(/\s+/g, ' ').trim();
}

/** Free text from the API inside a form: cleaned, quoted, bounded, so it reads as a name and nothing else. */
export function quoted(text: string | undefined | null, max = 60): string | undefined {
  const t = formText(text ?? '').replace(/["“”]/g, "'");
  if (!t) return undefined;
  return `“${t.length > max ? `${t.slice(0, max - 1)}…` : t}”`;
}

export async function consent(deps: ToolDeps, req: WriteRequest): Promise<Consent> {
  const confirmations = deps.confirmations!;
  // a forged, altered or foreign token is refused before anyone is asked anything
  const opened = req.confirmation === undefined ? undefined : confirmations.open(req.op, req.bound, req.confirmation, req.again);
  const pending = req.journaled?.state === 'pending' ? req.journaled.key : undefined;
  if (opened && (pending || req.journaled?.key === opened.key)) {
    // the same write again (a host retry, a restart): finish or replay it, never a second one
    return { ok: true, key: pending ?? opened.key, confirmedBy: 'confirmation' };
  }
  const ask = deps.askCustomer?.();
  if (ask) {
    const form = await req.form();
    const answer = await ask(formText(form.message), req.op);
    if (answer !== 'accept') return { ok: false, result: declined(answer, PAST[req.op]) };
    const usable = opened && opened.key !== req.spentKey ? opened.key : undefined;
    const key = pending ?? usable ?? confirmations.open(req.op, req.bound, confirmations.issue(req.op, req.bound, form.amounts ?? {}).confirmation, req.again).key;
    return { ok: true, key, confirmedBy: 'elicitation' };
  }
  const nothing = `nothing was ${PAST[req.op]}`;
  if (deps.requireCustomer) {
    throw new ToolError(
      'usage',
      `this server writes only with the customer's own answer, and this host cannot ask the customer: ${nothing}`,
      'the customer books or cancels in a host that can show them the server’s question (MCP elicitation), or the user starts this server without the require-customer option',
    );
  }
  if (!opened) {
    throw new ToolError('usage', `${TOOL[req.op]} needs a confirmation: ${nothing}`, req.op === 'reserve' ? req.again.replace('call quote again', 'call quote') : req.again);
  }
  if (opened.key === req.spentKey) {
    throw new ToolError('usage', `this confirmation already booked the identical reservation: ${nothing}`, req.again.replace('the new confirmation', 'the new confirmation and book_another: true'));
  }
  if (opened.expired) throw new ToolError('usage', `this confirmation expired (they last ${CONFIRMATION_MINUTES} minutes): ${nothing}`, req.again);
  await req.fresh?.(opened);
  return { ok: true, key: opened.key, confirmedBy: 'confirmation' };
}
