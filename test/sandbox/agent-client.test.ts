// X-Agent-Client on the three link endpoints: recorded (unverified) only when it is 1 to 64
// printable ASCII characters, ignored otherwise, never changing the answer; and the page a
// link opens names the agent only to the customer the flow belongs to.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';
import { PageClient, pathOf } from './page-client.js';

let h: Harness;
let unpaid: { uuid: string; date_checkout: string };
beforeAll(async () => {
  h = await startHarness();
  unpaid = (await h.call('GET', '/my/trips', { key: h.sb.keys.booking_write })).json.data.active.find((t: any) => t.balance_cents > 0);
});
afterAll(() => h.close());

/** A raw request, so header values fetch would refuse (tabs, Latin-1 bytes, repeats) can be sent. */
function rawPost(path: string, agentHeaders: [string, string][], body?: string): Promise<{ status: number; json: any }> {
  const url = new URL(h.sb.baseUrl + path);
  return new Promise((resolve, reject) => {
    // Raw header arrays get no Host or Content-Length from node: both are set here.
    const headers: [string, string][] = [['Host', url.host], ['Content-Length', String(Buffer.byteLength(body ?? ''))], ['Authorization', `Bearer ${h.sb.keys.read_only}`], ...agentHeaders];
    if (body) headers.push(['Content-Type', 'application/json']);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: headers.flat() as unknown as Record<string, string> }, (res) => {
      let text = '';
      res.setEncoding('latin1').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const endpoints = () => [
  { path: `/my/reservation/${unpaid.uuid}/payment-link`, body: JSON.stringify({ payment_type: 'rent' }) },
  { path: '/my/billing/cards/add-link', body: undefined },
  { path: `/my/reservation/${unpaid.uuid}/extension-link`, body: undefined },
];

async function flowClient(id: string): Promise<string | null> {
  const flows = (await h.admin('GET', '/agent-flows')).json.flows;
  const flow = flows.find((f: any) => f.id === id);
  if (!flow) throw new Error(`flow ${id} was not recorded`);
  return flow.agent_client;
}

describe('X-Agent-Client', () => {
  it('is recorded on every link endpoint when valid, and ignored otherwise without changing the answer', async () => {
    const cases: [string, [string, string][], string | null][] = [
      ['printable', [['X-Agent-Client', 'carrental/0.1.0 (node 20)']], 'carrental/0.1.0 (node 20)'],
      ['64 characters', [['X-Agent-Client', 'a'.repeat(64)]], 'a'.repeat(64)],
      ['one character', [['X-Agent-Client', '~']], '~'],
      ['65 characters', [['X-Agent-Client', 'a'.repeat(65)]], null],
      ['empty', [['X-Agent-Client', '']], null],
      ['a tab', [['X-Agent-Client', 'agent\tname']], null],
      ['Latin-1 bytes', [['X-Agent-Client', 'caf\u00e9']], null],
      ['sent twice', [['X-Agent-Client', 'one'], ['X-Agent-Client', 'two']], null],
      ['absent', [], null],
    ];
    for (const { path, body } of endpoints()) {
      for (const [name, headers, recorded] of cases) {
        const res = await rawPost(path, headers, body);
        expect(res.status, `${name} on ${path}`).toBe(200);
        expect(Object.keys(res.json.data).sort(), name).toEqual(['action', 'agent_flow_id', 'status', 'url']);
        const params = [...new URL(res.json.data.url).searchParams.keys()];
        expect(params.every((k) => ['intent', 'payment_type', 'checkout', 'agent_flow_id'].includes(k)), name).toBe(true);
        expect(await flowClient(res.json.data.agent_flow_id), `${name} on ${path}`).toBe(recorded);
      }
    }
  });

  it('is never an authority: with it, a missing key is still a 401 and a foreign reservation still a 404', async () => {
    const res = await h.call('POST', '/my/billing/cards/add-link', { headers: { 'X-Agent-Client': 'carrental/0.1.0' } });
    expect(res.status).toBe(401);
    const omars = (await h.call('GET', '/my/trips', { key: h.sb.keys.other_customer })).json.data.active[0];
    const foreign = await h.call('POST', `/my/reservation/${omars.uuid}/payment-link`, { key: h.sb.keys.booking_write, body: { payment_type: 'rent' }, headers: { 'X-Agent-Client': omars.uuid } });
    expect(foreign.status).toBe(404);
  });

  it('the page names the agent to the flow’s own customer only, as unverified', async () => {
    const res = await h.call('POST', `/my/reservation/${unpaid.uuid}/payment-link`, { key: h.sb.keys.booking_write, body: { payment_type: 'rent' }, headers: { 'X-Agent-Client': 'Helpful <b>Agent</b>' } });
    const url = pathOf(res.json.data.url);
    const dana = new PageClient(new URL(h.sb.appUrl).origin);
    await dana.login('dana', url);
    const page = await dana.open(url);
    expect(page.html).toContain('it calls itself <strong>Helpful &#60;b&#62;Agent&#60;/b&#62;</strong>; not verified');
    expect(page.html).toContain('The link alone does nothing');
    // The same flow id on another customer's page says nothing about that agent.
    const omars = (await h.call('GET', '/my/trips', { key: h.sb.keys.other_customer })).json.data.active[0];
    const omar = new PageClient(dana.origin);
    const foreignFlow = `/app/trips/${omars.uuid}?intent=pay&payment_type=reservation&agent_flow_id=${res.json.data.agent_flow_id}`;
    await omar.login('omar', foreignFlow);
    const other = await omar.open(foreignFlow);
    expect(other.status).toBe(200);
    expect(other.html).not.toContain('Helpful');
    expect(other.html).toContain('The link alone does nothing');
  });
});
