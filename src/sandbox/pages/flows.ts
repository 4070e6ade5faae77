// The agent_flow_id a link carries: a correlation id, not an authority. A page shows what the
// flow records (which agent asked, as the agent itself reported it) only to the customer the
// flow belongs to, and only when it matches the page; otherwise it is ignored.
import type { AgentFlowRec } from '../state.js';
import type { PageRequest } from './core.js';
import { type Html, html } from './html.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function flowIdOf(p: PageRequest): string | null {
  const id = p.method === 'POST' ? p.form.get('agent_flow_id') : p.url.searchParams.get('agent_flow_id');
  return id && UUID_RE.test(id) ? id.toLowerCase() : null;
}

export function matchingFlow(p: PageRequest, match: (flow: AgentFlowRec) => boolean): AgentFlowRec | null {
  const id = flowIdOf(p);
  const flow = id ? p.state.agentFlows[id] : undefined;
  return flow && p.auth && flow.customer_id === p.auth.customer.id && match(flow) ? flow : null;
}

/** "Nothing happens until you confirm", with the requesting agent when the flow is known. */
export function agentNote(p: PageRequest, match: (flow: AgentFlowRec) => boolean): Html {
  const flow = matchingFlow(p, match);
  const agent = flow
    ? html`An agent${flow.agent_client ? html` (it calls itself <strong>${flow.agent_client}</strong>; not verified)` : ''} asked you to review this. `
    : '';
  return html`<div class="notice">${agent}The link alone does nothing: nothing changes unless you confirm below.</div>`;
}

/** Carries the flow id through the confirmation, for the request log and the result. */
export function flowField(p: PageRequest): Html {
  const id = flowIdOf(p);
  return id ? html`<input type="hidden" name="agent_flow_id" value="${id}">` : html``;
}
