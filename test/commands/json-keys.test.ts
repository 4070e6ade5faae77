// Issue 27: JSON keys are snake_case everywhere carrental prints JSON: its own objects
// (reserve, cancel, dry runs, pending, doctor, status, auth status, config list, the
// sandbox commands, errors under --json) and the API's data it passes through (the API's
// fields are snake_case too). One sweep against the sandbox, walking every key of every
// object. Left out on purpose: the names of HTTP headers a dry run shows (`request.headers`:
// HTTP spells them `idempotency-key`), and `sandbox openapi`, an OpenAPI document whose
// vocabulary (`operationId`, `requestBody`) is the OpenAPI specification's.
import { describe, expect } from 'vitest';
import { admin, FROM, TO, test, type BookingCli } from '../booking/sandbox.js';

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Every key of every object in `value` that is not snake_case, as its path. */
function badKeys(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => badKeys(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => {
    // HTTP header names, as HTTP spells them
    if (key === 'headers' && path.endsWith('.request')) return [];
    return [...(SNAKE.test(key) ? [] : [`${path}.${key}`]), ...badKeys(v, `${path}.${key}`)];
  });
}

/** Runs a command with --json; its stdout is one JSON document whose keys are all snake_case. */
async function expectSnakeJson(cli: BookingCli, args: string[], code = 0): Promise<any> {
  const r = await cli([...args, '--json']);
  const where = `${args.join(' ')} --json`;
  expect(r.code, `${where}: ${r.stderr}`).toBe(code);
  let value: unknown;
  expect(() => (value = JSON.parse(r.stdout)), `${where}: stdout is JSON: ${r.stdout.slice(0, 200)}`).not.toThrow();
  expect(badKeys(value), where).toEqual([]);
  return value;
}

/** Runs a failing command with --json; stderr ends with the error object, snake_case. */
async function expectSnakeError(cli: BookingCli, args: string[], code: number): Promise<Record<string, unknown>> {
  const r = await cli([...args, '--json']);
  const where = `${args.join(' ')} --json`;
  expect(r.code, `${where}: ${r.stderr}`).toBe(code);
  const last = r.stderr.trimEnd().split('\n').at(-1)!;
  let value: Record<string, unknown> = {};
  expect(() => (value = JSON.parse(last)), `${where}: the last line of stderr is the error object: ${last}`).not.toThrow();
  expect(badKeys(value), where).toEqual([]);
  return value;
}

describe('JSON keys are snake_case', () => {
  test('the API reads, passed through: cars, car, quote, trips, invoices, invoice, profile, verification, cards, api', async ({ cli, alias }) => {
    await expectSnakeJson(cli, ['cars', '--city', 'la', '--from', FROM, '--to', TO, '--limit', '3']);
    await expectSnakeJson(cli, ['car', alias]);
    await expectSnakeJson(cli, ['quote', alias, '--from', FROM, '--to', TO]);
    const trips = await expectSnakeJson(cli, ['trips']);
    const uuid = trips.active[0].uuid as string;
    await expectSnakeJson(cli, ['trips', uuid]);
    const invoices = await expectSnakeJson(cli, ['invoices', uuid]);
    await expectSnakeJson(cli, ['invoice', invoices[0].id]);
    await expectSnakeJson(cli, ['profile']);
    await expectSnakeJson(cli, ['verification']);
    await expectSnakeJson(cli, ['cards']);
    await expectSnakeJson(cli, ['api', 'GET', '/my/trips']);
  });

  test('links: pay-link, extend-link, card-link', async ({ cli }) => {
    const trips = await expectSnakeJson(cli, ['trips']);
    const uuid = trips.active[0].uuid as string;
    await expectSnakeJson(cli, ['pay-link', uuid]);
    await expectSnakeJson(cli, ['extend-link', uuid, '--to', '2026-12-30 10:00']);
    await expectSnakeJson(cli, ['card-link']);
  });

  test("carrental's own: reserve, cancel and their dry runs, pending", async ({ cli, alias, sb }) => {
    await expectSnakeJson(cli, ['reserve', alias, '--from', FROM, '--to', TO, '-y', '--dry-run']);
    const reserved = await expectSnakeJson(cli, ['reserve', alias, '--from', FROM, '--to', TO, '-y']);
    expect(reserved.uuid).toMatch(/^[0-9a-f-]{36}$/);
    await expectSnakeJson(cli, ['cancel', reserved.uuid, '-y', '--dry-run']);
    await expectSnakeJson(cli, ['cancel', reserved.uuid, '-y']);
    // a create whose outcome stays unknown leaves a pending entry (exit 6)
    await admin(sb, 'POST', '/faults', { kind: 'drop', operation: 'createReservation', when: 'before_commit' });
    await expectSnakeError(cli, ['reserve', alias, '--from', '2026-12-10T10:00', '--to', '2026-12-12T10:00', '-y'], 6);
    const pending = await expectSnakeJson(cli, ['pending']);
    expect(pending).toHaveLength(1);
  });

  test("carrental's own: status, doctor (and --contract), auth status, config list, get and path", async ({ cli }) => {
    await expectSnakeJson(cli, ['status']);
    await expectSnakeJson(cli, ['doctor']);
    await expectSnakeJson(cli, ['doctor', '--contract']);
    await expectSnakeJson(cli, ['auth', 'status']);
    expect((await cli(['config', 'set', 'city', 'la'])).code).toBe(0);
    await expectSnakeJson(cli, ['config', 'list']);
    await expectSnakeJson(cli, ['config', 'get', 'city']);
    await expectSnakeJson(cli, ['config', 'path']);
  });

  test('the sandbox commands, against a running sandbox', async ({ cli }) => {
    const trips = await expectSnakeJson(cli, ['trips']);
    const uuid = trips.active[0].uuid as string;
    await expectSnakeJson(cli, ['sandbox', 'keys']);
    await expectSnakeJson(cli, ['sandbox', 'clock']);
    await expectSnakeJson(cli, ['sandbox', 'clock', 'advance', '1h']);
    await expectSnakeJson(cli, ['sandbox', 'fault', 'add', 'latency', '--operation', 'getCar', '--ms', '1']);
    await expectSnakeJson(cli, ['sandbox', 'fault', 'list']);
    await expectSnakeJson(cli, ['sandbox', 'fault', 'clear']);
    await expectSnakeJson(cli, ['sandbox', 'card', 'add']);
    await expectSnakeJson(cli, ['sandbox', 'pay', uuid]);
    await expectSnakeJson(cli, ['sandbox', 'extend', uuid, '--to', '2026-12-20T10:00']);
    await expectSnakeJson(cli, ['sandbox', 'reset', '-y']);
  });

  test('errors under --json: usage, parser, not found, the API', async ({ cli }) => {
    const usage = await expectSnakeError(cli, ['trips', 'nope'], 2);
    expect(usage).toMatchObject({ kind: 'usage', exit_code: 2 });
    await expectSnakeError(cli, ['cars', '--city', 'paris'], 2);
    await expectSnakeError(cli, ['cars', '--bogus'], 2);
    await expectSnakeError(cli, ['trips', '00000000-0000-4000-8000-000000000000'], 4);
    await expectSnakeError(cli, ['car', 'no-such-car-1'], 4);
  });
});
