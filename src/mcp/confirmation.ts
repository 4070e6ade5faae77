// Confirmations: what lets the MCP server write only what the customer agreed to. `quote`
// issues one bound to that exact request and the total it quoted; `get_trip` issues one to
// cancel that reservation. `reserve` and `cancel_reservation` accept nothing else.
//
// A confirmation is `<payload>.<mac>`: the payload (base64url JSON) says what it is for (the
// operation and a hash of the canonical request, the API and the credential's fingerprint),
// the quoted total and deposit, its expiry and a nonce; the mac is an HMAC-SHA256 of it
// under this install's secret (store/install-secret.ts), so an agent can read it but not
// make or alter one. The idempotency key of the write is derived from it too: the same
// confirmation again replays the same booking (never a second), a new one is a new booking.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { CliError } from '../errors.js';

/** How long a confirmation is accepted (docs/agents.md). */
export const CONFIRMATION_MINUTES = 15;

export type ConfirmedOperation = 'reserve' | 'cancel';

interface Payload {
  /** operation */
  o: ConfirmedOperation;
  /** hash of what it is bound to */
  h: string;
  /** quoted total and deposit, cents (reserve) */
  t?: number;
  d?: number;
  /** expiry, epoch seconds */
  e: number;
  n: string;
}

/** A refusal in the words of the tools, with the next step an agent can take. */
export class ToolError extends CliError {
  constructor(
    kind: CliError['kind'],
    message: string,
    readonly nextStep: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(kind, message);
  }
}

export interface Opened {
  /** The idempotency key this confirmation writes with. */
  key: string;
  expired: boolean;
  total?: number;
  deposit?: number;
}

const b64 = (b: Buffer) => b.toString('base64url');

export class Confirmations {
  constructor(
    private readonly secret: Buffer,
    private readonly now: () => Date,
  ) {}

  private mac(label: string, text: string): Buffer {
    return createHmac('sha256', this.secret).update(`carrental-confirmation-v1 ${label} ${text}`).digest();
  }

  /** What a confirmation binds: the operation's canonical request, on this API, for this credential. */
  static binding(parts: unknown): string {
    return b64(createHash('sha256').update(JSON.stringify(parts)).digest().subarray(0, 18));
  }

  issue(op: ConfirmedOperation, binding: string, amounts: { total?: number; deposit?: number } = {}): { confirmation: string; expires_at: string } {
    const expires = Math.floor(this.now().getTime() / 1000) + CONFIRMATION_MINUTES * 60;
    const payload: Payload = { o: op, h: binding, ...(amounts.total !== undefined ? { t: amounts.total, d: amounts.deposit } : {}), e: expires, n: b64(randomBytes(9)) };
    const text = b64(Buffer.from(JSON.stringify(payload)));
    return { confirmation: `${text}.${b64(this.mac('sign', text))}`, expires_at: new Date(expires * 1000).toISOString().slice(0, 16) + 'Z' };
  }

  /**
   * Checks a confirmation for this operation and binding. A forged, altered or foreign one
   * is a ToolError; an expired one opens (a retry of its booking still replays) with
   * `expired` set, for the caller to refuse anything new.
   */
  open(op: ConfirmedOperation, binding: string, confirmation: string, again: string): Opened {
    const [text, mac, extra] = confirmation.split('.');
    const forged = new ToolError('usage', 'this confirmation is not one this server issued (or it was altered): nothing was sent', again);
    if (!text || !mac || extra !== undefined) throw forged;
    const expected = this.mac('sign', text);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw forged;
    const payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Payload;
    if (payload.o !== op || payload.h !== binding) {
      throw new ToolError('usage', `this confirmation was issued for another ${op === 'reserve' ? 'request (car, dates, options, extras or promo differ)' : 'reservation'}: nothing was sent`, again);
    }
    return {
      key: `mcp-${b64(this.mac('idempotency', text).subarray(0, 24))}`,
      expired: this.now().getTime() / 1000 > payload.e,
      total: payload.t,
      deposit: payload.d,
    };
  }
}
