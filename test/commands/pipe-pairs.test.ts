// Issue 27: in a pipe, every key-value output is `label<TAB>value` lines with one key per
// field: a script reads it with `awk -F'\t' '$1 == "deposit"'` and must find one line. A
// label that repeats names a record (`item`, `invoice`, `plan`, …) and carries more than
// one value; a pair (one value) never repeats, and no pair shares its label with a record.
// Money is a plain number of dollars, two decimals, no `$`, so `sort -n` and `awk` sums work.
// One sweep, in a pipe, against the sandbox: car, quote, trips <uuid> (every trip of the
// demo customer), invoice, profile, verification, auth status, doctor.
import { describe, expect } from 'vitest';
import { FROM, TO, test } from '../booking/sandbox.js';

const MONEY = /^-?\d+\.\d\d$/;

interface Parsed {
  /** label → values of the lines with one value */
  pairs: Map<string, string[]>;
  /** the labels of the lines with more than one value */
  records: Set<string>;
}

/** The stdout of a key-value output, as pairs and records; fails on a line that is neither. */
function parse(stdout: string, where: string): Parsed {
  const pairs = new Map<string, string[]>();
  const records = new Set<string>();
  expect(stdout, `${where}: prints something`).not.toBe('');
  for (const line of stdout.replace(/\n$/, '').split('\n')) {
    const [label, ...values] = line.split('\t');
    expect(values.length, `${where}: a line with no value: ${JSON.stringify(line)}`).toBeGreaterThan(0);
    expect(label, `${where}: a line with no label: ${JSON.stringify(line)}`).not.toBe('');
    if (values.length === 1) pairs.set(label, [...(pairs.get(label) ?? []), values[0]]);
    else records.add(label);
    // no field is a `$` amount (a server's description may say "$40.00 a day"; that is text)
    for (const v of values) expect(v, `${where}: ${label} is a dollar amount, not a plain number`).not.toMatch(/^-?\$[\d,]+(\.\d+)?$/);
  }
  return { pairs, records };
}

function expectUniqueKeys({ pairs, records }: Parsed, where: string) {
  const repeated = [...pairs].filter(([, values]) => values.length > 1).map(([label]) => label);
  expect(repeated, `${where}: a label repeated within the record`).toEqual([]);
  const both = [...pairs.keys()].filter((label) => records.has(label));
  expect(both, `${where}: a label used for a pair and for a record`).toEqual([]);
}

function expectMoney({ pairs }: Parsed, labels: string[], where: string) {
  for (const label of labels) {
    expect(pairs.has(label), `${where}: has ${label}`).toBe(true);
    expect(pairs.get(label)![0], `${where}: ${label}`).toMatch(MONEY);
  }
}

/** The pair outputs of one command, checked. */
async function sweep(cli: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>, args: string[], money: string[] = []) {
  const where = args.join(' ');
  const r = await cli(args);
  expect(r.code, `${where}: ${r.stderr}`).toBe(0);
  const parsed = parse(r.stdout, where);
  expectUniqueKeys(parsed, where);
  expectMoney(parsed, money, where);
  return parsed;
}

describe('pipe output: one key per field, money as plain numbers', () => {
  test('car <alias>', async ({ cli, alias }) => {
    const car = await sweep(cli, ['car', alias], ['day rate', 'trip fee', 'deposit']);
    expect([...car.records]).toEqual(expect.arrayContaining(['plan', 'extra']));
  });

  test('quote, plain and with a plan and an extra', async ({ cli, alias }) => {
    await sweep(cli, ['quote', alias, '--from', FROM, '--to', TO], ['day rate', 'total', 'deposit']);
    const extra = (await cli(['car', alias, '--jq', '.prices.extras[0].item_type'])).stdout.trim();
    const plan = (await cli(['car', alias, '--jq', '.prices.protection | keys | last'])).stdout.trim();
    const withOptions = await sweep(cli, ['quote', alias, '--from', FROM, '--to', TO, '--protection', plan, '--extra', extra], ['total', 'deposit']);
    expect(withOptions.records.has('item')).toBe(true);
  });

  test('trips <uuid>, every trip of the customer; invoice <uuid>, every invoice of a trip', async ({ cli }) => {
    const list = JSON.parse((await cli(['trips', '--json'])).stdout) as { active: Array<{ uuid: string }>; history: Array<{ uuid: string }> };
    const trips = [...list.active, ...list.history];
    expect(trips.length).toBeGreaterThan(2);
    for (const { uuid } of trips) {
      const trip = await sweep(cli, ['trips', uuid], ['deposit']);
      // a total the API does not know (null) is the word `unknown`, never 0.00 (the trips list says the same)
      const cents = JSON.parse((await cli(['trips', uuid, '--jq', '.financial_summary.trip_total_cents'])).stdout) as number | null;
      expect(trip.pairs.get('trip total'), `trips ${uuid}: trip total`).toEqual([cents === null ? 'unknown' : (cents / 100).toFixed(2)]);
    }
    const invoices = JSON.parse((await cli(['invoices', list.active[0].uuid, '--json'])).stdout) as Array<{ id: string }>;
    expect(invoices.length).toBeGreaterThan(0);
    for (const { id } of invoices) await sweep(cli, ['invoice', id], ['amount']);
  });

  test('profile, verification and auth status', async ({ cli }) => {
    await sweep(cli, ['profile']);
    await sweep(cli, ['verification']);
    const status = await sweep(cli, ['auth', 'status']);
    expect(status.pairs.has('capability')).toBe(true);
  });

  test('doctor: one line per check and per operation, no name twice in a section', async ({ cli }) => {
    const r = await cli(['doctor']);
    expect(r.code, r.stderr).toBe(0);
    const sections = r.stdout.split(/^# .*\n/m).filter((s) => s.trim() !== '');
    expect(sections).toHaveLength(2);
    for (const [i, section] of sections.entries()) {
      const where = `doctor, section ${i + 1}`;
      const names = section.trim().split('\n').map((l) => l.split('\t')[0]);
      expect(names.filter((n, j) => names.indexOf(n) !== j), where).toEqual([]);
      for (const line of section.trim().split('\n')) expect(line.split('\t').length, `${where}: ${line}`).toBeGreaterThan(2);
    }
  });
});
