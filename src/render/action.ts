// A ManualAction (pay, add a card, extend) is a handoff to the customer, never an outcome:
// the link goes on its own line on stdout so scripts can take it, and the human is told on
// stderr that opening it completes nothing by itself.
import type { ManualAction } from '../api/schemas.js';
import type { Output } from './output.js';
import { clean } from '../text/sanitize.js';

const WHAT: Record<string, string> = {
  pay_reservation: 'The customer pays on this page',
  add_payment_card: 'The customer adds or replaces the saved card on this page',
  extend_reservation: 'The customer reviews and confirms the extension on this page',
};

const DEFAULT_NEXT_STEP = 're-read the account to learn the outcome';

export interface PrintActionOptions {
  /** true: opened in a browser; a string: --open was asked but nothing was opened (the reason). */
  opened?: boolean | string;
  /** What to run afterwards to learn the outcome, e.g. "run `carrental trips <uuid>`". */
  nextStep?: string;
  /** What --json prints: the payload as received (`payloadOf(res)`); defaults to `action`. */
  payload?: unknown;
  /** One more line for the human, e.g. that the embedded sandbox serves the page only while it runs. */
  note?: string;
  /** Like note, as a warning (e.g. the sandbox's stable port is held by something else). */
  warning?: string;
}

/**
 * Prints the action. With --json the payload goes to stdout as received; in both forms the
 * reminder that opening the link is not completion goes to stderr.
 */
export function printAction(out: Output, action: ManualAction, opts: PrintActionOptions = {}): void {
  if (out.json) {
    out.printJson(opts.payload ?? action);
  } else {
    out.info(`${WHAT[action.action] ?? `Action ${clean(action.action)}`}:`);
    out.link(action.url);
    // a pipe asked for one value, the link (`url=$(carrental pay-link …)`); the flow id is in it too
    if (out.tty) out.pairs([['agent_flow_id', action.agent_flow_id]]);
    else out.info(`agent_flow_id: ${clean(action.agent_flow_id)}`);
  }
  if (opts.opened === true) out.info('Opened in your browser.');
  else if (typeof opts.opened === 'string') out.info(`Not opened (${clean(opts.opened)}): open the link yourself.`);
  else if (opts.opened === false) out.info('Not opened: open the link yourself.');
  if (opts.warning) out.warn(opts.warning);
  if (opts.note) out.info(opts.note);
  out.info(
    `Opening the link is not completion: the customer must log in, review and confirm on that page. Then ${opts.nextStep ?? DEFAULT_NEXT_STEP}.`,
  );
}
