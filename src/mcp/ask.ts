// Asking the customer through the host, in both protocol generations:
// - 2025-11-25: the server sends an `elicitation/create` request on the live connection and
//   waits for the answer (form mode for a yes/no, URL mode for a link);
// - 2026-07-28: there is no server-to-client request. The tool call ends with an
//   `input_required` result carrying the question; the host asks, then calls the tool again
//   with the answer (`inputResponses`) and our `requestState` echoed. The tool then runs again
//   from the start (its checks and reads are repeated; it writes only after the answer).
//
// A tool asks with `await ask(message, field)`. On a 2026-07-28 request whose answer has not
// arrived, that call throws NeedInput: the call ends there, before any write, and the server
// turns it into the input_required result. The answer is bound to exactly the question that
// was shown: the tool, its arguments, the field and the text (total, deposit, car, dates). An
// answer echoed for another question, an altered or expired requestState, or an answer with
// no requestState at all asks again; nothing is written on such an answer.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { inputRequired, type InputRequest, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';

export type Answer = 'accept' | 'decline' | 'cancel';
export type Ask = (message: string, field: string) => Promise<Answer>;

/** A question the host must put to the user before this call can go on (2026-07-28). */
export class NeedInput extends Error {
  constructor(
    readonly key: string,
    readonly request: InputRequest,
    readonly hash: string,
  ) {
    super(`the customer must answer "${key}" first`);
  }
}

/** What a 2026-07-28 flow carries between its rounds: the answers given, and the question now open. */
interface FlowState {
  /** answers by question hash */
  a: Record<string, Answer>;
  /** the question the last round asked: its hash and its inputRequests key */
  p?: { h: string; k: string };
}

export interface StateCodec {
  mint(payload: FlowState, ctx: ServerContext): Promise<string>;
  /** ServerOptions.requestState.verify: the payload, or a throw (answered -32602 by the SDK). */
  verify(state: string, ctx: ServerContext): Promise<FlowState>;
}

/** How long a question may wait for its answer. */
export const STATE_TTL_SECONDS = 600;

/**
 * The requestState codec: `v1.<payload>.<HMAC-SHA256>`, base64url, the payload holding the
 * flow, its expiry and the method it belongs to. (The SDK's createRequestStateCodec does the
 * same, but lives in the module of its HTTP serving, which a stdio server must not load.) The
 * key is derived from the install's secret (the one the confirmations use), so any server
 * process of this install can verify a state another one minted, for ten minutes.
 */
export function stateCodec(secret: Buffer, now: () => number = Date.now): StateCodec {
  const key = createHash('sha256').update('carrental mcp requestState\0').update(secret).digest();
  const mac = (body: string) => createHmac('sha256', key).update(`v1.${body}`).digest();
  return {
    async mint(payload, ctx) {
      const body = Buffer.from(JSON.stringify({ p: payload, exp: Math.floor(now() / 1000) + STATE_TTL_SECONDS, m: ctx.mcpReq.method })).toString('base64url');
      return `v1.${body}.${mac(body).toString('base64url')}`;
    },
    async verify(state, ctx) {
      const [version, body, tag, ...rest] = state.split('.');
      const given = Buffer.from(tag ?? '', 'base64url');
      const want = mac(body ?? '');
      if (version !== 'v1' || !body || rest.length || given.length !== want.length || !timingSafeEqual(given, want)) throw new Error('mac');
      const sealed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: FlowState; exp: number; m: string };
      if (sealed.exp < now() / 1000) throw new Error('expired');
      if (sealed.m !== ctx.mcpReq.method) throw new Error('bind');
      return sealed.p;
    },
  };
}

const hashOf = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);

/** The boolean form a yes/no question shows. */
export function yesNoSchema(message: string, field: string) {
  return {
    type: 'object' as const,
    properties: { [field]: { type: 'boolean' as const, title: field === 'reserve' ? 'Reserve it' : field === 'cancel' ? 'Cancel it' : 'Yes', description: message } },
    required: [field],
  };
}

/** A form answer: yes only when accepted and ticked. */
export function formAnswer(answer: { action: string; content?: Record<string, unknown> } | undefined, field: string): Answer | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  if (answer.action === 'decline' || answer.action === 'cancel') return answer.action;
  if (answer.action !== 'accept') return undefined;
  return answer.content?.[field] === true ? 'accept' : 'decline';
}

/** The per-call flow of a 2026-07-28 tool call: answers from earlier rounds, questions raised by this one. */
export class ModernFlow {
  private readonly answers: Record<string, Answer>;
  private readonly pending?: { h: string; k: string };
  constructor(
    private readonly ctx: ServerContext,
    private readonly call: { tool: string; args: unknown },
  ) {
    // verified by the codec before the handler runs (ServerOptions.requestState.verify)
    const state = ctx.mcpReq.requestState<FlowState>();
    this.answers = { ...(state && typeof state === 'object' ? state.a : {}) };
    this.pending = state && typeof state === 'object' ? state.p : undefined;
  }

  private answered(hash: string, key: string, read: (response: unknown) => Answer | undefined): Answer | undefined {
    if (this.answers[hash]) return this.answers[hash];
    if (this.pending?.h !== hash || this.pending.k !== key) return undefined;
    const answer = read(this.ctx.mcpReq.inputResponses?.[key]);
    if (answer) this.answers[hash] = answer;
    return answer;
  }

  readonly ask: Ask = async (message, field) => {
    const hash = hashOf([this.call.tool, this.call.args, 'form', field, message]);
    const answer = this.answered(hash, field, (r) => formAnswer(r as never, field));
    if (answer) return answer;
    throw new NeedInput(field, inputRequired.elicit({ message, requestedSchema: yesNoSchema(message, field) }), hash);
  };

  readonly offerUrl = async (message: string, url: string): Promise<Answer> => {
    const hash = hashOf([this.call.tool, this.call.args, 'url', message, url]);
    const key = 'open_link';
    const answer = this.answered(hash, key, (r) => {
      const action = (r as { action?: string } | undefined)?.action;
      return action === 'accept' || action === 'decline' || action === 'cancel' ? action : undefined;
    });
    if (answer) return answer;
    throw new NeedInput(key, inputRequired.elicitUrl({ message, url }), hash);
  };

  /** The input_required result for a question this round raised, with the answers so far sealed in its state. */
  async result(need: NeedInput, codec: StateCodec): Promise<InputRequiredResult> {
    const requestState = await codec.mint({ a: this.answers, p: { h: need.hash, k: need.key } }, this.ctx);
    return inputRequired({ inputRequests: { [need.key]: need.request }, requestState });
  }
}
