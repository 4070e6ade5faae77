// Issue 36, "pipes get plain values in every column": every command that prints
// tab-separated lines is walked in a pipe on the sandbox, and each column is checked.
//
// A column is plain when a script can use it as it is, without cutting words off a value:
// - empty, or one value: a number (`228.00`, `-15.00`, `3`), a date or a date-time with its
//   zone (`2026-12-08`, `2026-12-08 10:00`, `2026-12-08 10:00 UTC`), a card expiry
//   (`12/2029`), or one token (an id, a uuid, an alias, a zone, an e-mail, a URL, a word of
//   a closed set such as `to_pay`);
// - or words that carry no value (no digit, no `$`): a state or a label (`to pay`);
// - or text the API sent, as it sent it (a car name, an address, an invoice description:
//   found verbatim among the strings of the command's own `--json`);
// - or a command line to run next (`carrental …`).
// What is not plain is a value mixed into the CLI's words: `$228.00 to pay`, `•••• 4242`,
// `12/2025 (expired)`, `$200.00 (not included in the total)`.
import { describe, expect, it } from 'vitest';
import { runCommand, type TestHome } from '../helpers/cli.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);
const day = (ahead: number) => `${new Date(SANDBOX_NOW.getTime() + ahead * 86_400_000).toISOString().slice(0, 10)}T10:00`;
const FROM = day(60);
const TO = day(63);
const cli = (args: string[]) => runCommand(['--base-url', sb.baseUrl, ...args], { env: home.env({ NO_COLOR: '1', CARRENTAL_API_KEY: sb.keys.booking_write }) });

const ONE_VALUE = [
  /^-?\d+(?:\.\d+)?$/,
  /^\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2}(?: UTC| [A-Za-z_]+\/[A-Za-z_]+)?)?$/,
  /^\d{2}\/\d{4}$/,
  /^[A-Za-z0-9][\w.@:+/?=&%-]*$/,
];

/** Every string of a JSON document: the text the API sent. */
function strings(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, into));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, into));
  return into;
}

function plain(value: string, apiText: Set<string>): boolean {
  if (value === '' || ONE_VALUE.some((re) => re.test(value))) return true;
  if (!/[\d$]/.test(value)) return true;
  return apiText.has(value) || value.startsWith('carrental ');
}

async function walk(args: string[]): Promise<string[][]> {
  const r = await cli(args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  const json = await cli([...args, '--json']);
  const apiText = json.code === 0 && json.stdout.trim() ? strings(JSON.parse(json.stdout)) : new Set<string>();
  const lines = r.stdout.split('\n').filter((l) => l !== '').map((l) => l.split('\t'));
  for (const fields of lines) {
    for (const f of fields) expect(plain(f, apiText), `${args.join(' ')}: "${f}" in ${fields.join(' | ')}`).toBe(true);
  }
  return lines;
}

describe('every column of every command is a plain value in a pipe', () => {
  it('the plain rule itself tells a value from a value in words', () => {
    const none = new Set<string>();
    for (const ok of ['228.00', '', 'to_pay', 'to pay', '2026-12-08 10:00 America/Los_Angeles', '12/2029', 'card_demo_dana_visa']) expect(plain(ok, none), ok).toBe(true);
    for (const bad of ['$228.00 to pay', '•••• 4242', '12/2025 (expired)', '$200.00 (not included in the total; held separately)']) expect(plain(bad, none), bad).toBe(false);
  });

  it('lists, details, the quote, the account commands and cancel', async () => {
    const alias = 'toyota-camry-1001';
    await walk(['cars', '--city', 'la', '--limit', '10']);
    await walk(['cars', '--city', 'la', '--from', FROM, '--to', TO, '--limit', '10']);
    await walk(['car', alias]);
    await walk(['quote', alias, '--from', FROM, '--to', TO]);
    const trips = await walk(['trips']);
    expect(trips.length).toBeGreaterThan(2);
    for (const [uuid] of trips) {
      await walk(['trips', uuid!]);
      const invoices = await walk(['invoices', uuid!]);
      if (invoices[0]) await walk(['invoice', invoices[0][0]!]);
    }
    await walk(['status']);
    await walk(['profile']);
    await walk(['verification']);
    const cards = await walk(['cards']);
    expect(cards).toHaveLength(1);
    await walk(['pending']);
    await walk(['auth', 'status']);
    await walk(['card-link']);
    await walk(['pay-link', trips.find((f) => f[1] === 'active')![0]!]);
    const reserved = await cli(['reserve', alias, '--from', FROM, '--to', TO, '-y', '--json', 'uuid']);
    const uuid = (JSON.parse(reserved.stdout) as { uuid: string }).uuid;
    await walk(['trips', uuid]);
    const cancelled = await cli(['cancel', uuid, '-y']);
    for (const fields of cancelled.stdout.split('\n').filter(Boolean).map((l) => l.split('\t'))) {
      for (const f of fields) expect(plain(f, new Set()), `cancel: "${f}"`).toBe(true);
    }
  });

  it('cards: the last four digits, the expiry and whether it expired, each a column', async () => {
    const [card] = await walk(['cards']);
    expect(card).toEqual(['visa', '4242', '12/2029', 'card_demo_dana_visa', 'no']);
  });
});
