// `profile`, `verification`, `cards` and `card-link`, in-process against the sandbox, for
// each customer state the fixtures hold (expired and expiring licences, no card, card
// payments not enabled).
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/cli/main.js';
import { sandboxExtraCredentials } from '../../src/sandbox/index.js';
import { runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { rawGet } from '../helpers/raw-api.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

// a terminal's text without its styles
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

let sb: TestSandbox;
let home: TestHome;
const extra = sandboxExtraCredentials(1);

const raw = (path: string, key = sb.keys.booking_write) => rawGet(sb.baseUrl, path, key);
const run = (argv: string[], opts: RunOpts & { key?: string } = {}) =>
  runCommand(['--base-url', sb.baseUrl, ...argv], { now: () => SANDBOX_NOW, ...opts, env: home.env({ CARRENTAL_API_KEY: opts.key ?? sb.keys.booking_write, ...opts.env }) });

sandboxPerTest((started) => (sb = started), (fresh) => (home = fresh));

describe('profile', () => {
  it('says who the key belongs to, with the saved card masked', async () => {
    const p = (await raw('/my/profile')).body.data;
    const r = await run(['profile']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`customer\t${p.uuid}`);
    expect(r.stdout).toContain(`first name\t${p.first_name}`);
    expect(r.stdout).toContain('approved to drive\tyes');
    // a pipe: the card's id (its details are `carrental cards`); a terminal: masked, with its expiry
    expect(r.stdout).toMatch(/^saved card\tcard_\S+$/m);
    expect(plain((await run(['profile'], { tty: true })).stdout)).toMatch(/saved card\S*\s+visa •••• 4242, expires \d\d\/\d{4}/);
  });

  it('says when there is no saved card and the driver is not approved', async () => {
    const r = await run(['profile'], { key: sb.keys.unverified });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('approved to drive\tno\n');
    expect(r.stdout).toContain('saved card\tnone\n');
    const shown = plain((await run(['profile'], { key: sb.keys.unverified, tty: true })).stdout);
    expect(shown).toMatch(/approved to drive\S*\s+no \(see `carrental verification`\)/);
    expect(shown).toMatch(/saved card\S*\s+no saved card/);
  });

  it('--json prints the payload exactly as the API sends it', async () => {
    const r = await run(['profile', '--json'], { key: sb.keys.other_customer });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual((await raw('/my/profile', sb.keys.other_customer)).body.data);
  });

  it('a rejected key exits 3 with the next step', async () => {
    const r = await run(['profile'], { key: extra.revoked });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: .*\(invalid_credentials, request req_/m);
    expect(r.stderr).toContain('hint: ');
    expect(r.stderr).not.toContain(extra.revoked);
  });

  it('403 api_key_operation_not_enabled: not yet available to API keys (exit 3)', async () => {
    await sb.fault({ kind: 'operation_not_enabled', operation: 'getProfile', times: 1 });
    const r = await run(['profile']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('hint: `carrental doctor` shows which operations this deployment opens to API keys');
  });
});

describe('verification', () => {
  it('a verified driver with a valid licence: no warning', async () => {
    const r = await run(['verification']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\tverified\n');
    expect(r.stdout).toContain('approved to drive\tyes');
    expect(r.stdout).toContain('licence status\tapproved');
    expect(r.stdout).toMatch(/^licence expiry\t\d{4}-\d\d-\d\d$/m);
    expect(r.stderr).toBe('');
  });

  it('warns about a licence that expires within 30 days', async () => {
    const r = await run(['verification'], { key: sb.keys.other_customer });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^licence expiry\t\d{4}-\d\d-\d\d: expires in 20 days$/m);
    expect(r.stderr).toMatch(/^warning: the driver's licence expires in 20 days/m);
  });

  it('warns about an expired licence', async () => {
    const r = await run(['verification'], { key: extra.expired_licence });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^licence expiry\t\d{4}-\d\d-\d\d: expired \(10 days ago\)$/m);
    expect(r.stdout).toContain('approved to drive\tno');
    expect(r.stderr).toMatch(/^warning: the driver's licence expired on \d{4}-\d\d-\d\d/m);
  });

  it('a pending licence without a date', async () => {
    const r = await run(['verification'], { key: sb.keys.unverified });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\tpending\n');
    expect(r.stdout).toContain('licence expiry\tnot recorded');
    expect(r.stderr).toBe('');
  });

  it('--json prints the payload exactly as the API sends it', async () => {
    const r = await run(['verification', '--json'], { key: extra.expired_licence });
    expect(JSON.parse(r.stdout)).toEqual((await raw('/my/verification', extra.expired_licence)).body.data);
  });
});

describe('cards', () => {
  it('shows brand, last four and expiry', async () => {
    const card = (await raw('/my/billing/cards')).body.data[0];
    const r = await run(['cards']);
    expect(r.code).toBe(0);
    // in a pipe the four digits bare, and whether it expired in a column of its own
    expect(r.stdout).toBe(`${card.card_brand}\t${card.last4}\t${String(card.exp_month).padStart(2, '0')}/${card.exp_year}\t${card.id}\tno\n`);
  });

  it('says "no saved card" on stderr and prints nothing on stdout', async () => {
    const r = await run(['cards'], { key: sb.keys.unverified });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no saved card');
  });

  it('--json prints the array exactly as the API sends it, empty or not', async () => {
    for (const key of [sb.keys.booking_write, sb.keys.unverified]) {
      const r = await run(['cards', '--json'], { key });
      expect(JSON.parse(r.stdout)).toEqual((await raw('/my/billing/cards', key)).body.data);
    }
  });
});

describe('card-link', () => {
  const flows = async (customer: string) => (await sb.admin<{ flows: any[] }>('GET', `/agent-flows?customer=${customer}`)).flows;

  it('prints the link alone on the first stdout line, the agent_flow_id, and the reminder; sends X-Agent-Client', async () => {
    const r = await run(['card-link']);
    expect(r.code).toBe(0);
    // a pipe gets the link alone (one value asked for, one line); the flow id goes to stderr
    expect(r.stdout.split('\n')).toHaveLength(2);
    const url = r.stdout.trimEnd();
    const flow = (await flows('dana')).pop();
    expect(url).toBe(flow.url);
    expect(url).toMatch(/\/app\/billing\/cards\?agent_flow_id=/);
    expect(r.stderr).toContain(`agent_flow_id: ${flow.id}\n`);
    expect(flow.agent_client).toBe(`carrental/${VERSION}`);
    expect(r.stderr).toContain('Opening the link is not completion');
    expect(r.stderr).toContain('`carrental cards`');
  });

  it('points a customer without a card to the add page', async () => {
    const r = await run(['card-link'], { key: sb.keys.unverified });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/\/app\/billing\/card-add\?agent_flow_id=[0-9a-f-]{36}$/);
  });

  it('card payments not enabled: exit 3 with the reason', async () => {
    const r = await run(['card-link'], { key: sb.keys.no_card_payments });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/\(card_payments_not_enabled, request req_/);
    expect(r.stderr).toContain('hint: only the rental company can turn card payments on for an account');
    expect(r.stdout).toBe('');
  });

  it('--json prints the action exactly as the API sent it', async () => {
    const r = await run(['card-link', '--json']);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    const flow = (await flows('dana')).pop();
    expect(printed).toEqual({ action: 'add_payment_card', status: 'requires_user_action', url: flow.url, agent_flow_id: flow.id });
    expect(r.stderr).toContain('not completion');
  });

  it('--open hands the link to $BROWSER and says so', async () => {
    const script = join(home.dir, 'browser.sh');
    const record = join(home.dir, 'opened.txt');
    writeFileSync(script, `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`);
    chmodSync(script, 0o755);
    const r = await run(['card-link', '--open'], { env: { BROWSER: script } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Opened in your browser.');
    for (let i = 0; i < 100 && !existsSync(record); i++) await new Promise((res) => setTimeout(res, 20));
    expect(readFileSync(record, 'utf8')).toBe(r.stdout.split('\n')[0]);
  });

  it('--open without a usable browser only prints the link', async () => {
    const r = await run(['card-link', '--open'], { env: { BROWSER: join(home.dir, 'no-such-browser') } });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/app\/billing\/cards\?agent_flow_id=/);
    expect(r.stderr).toMatch(/Not opened \(.*could not start.*\): open the link yourself\./);
  });
});
