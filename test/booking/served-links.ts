// Helpers for tests of the links the embedded sandbox serves: a reservation made through
// `--sandbox` itself (its state file in the test home), dates computed from today so the
// tests do not rot.
import { expect } from 'vitest';
import { PassThrough } from 'node:stream';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { FakeOut, runCommand } from '../helpers/cli.js';

/** YYYY-MM-DDT10:00, `days` from now (UTC date; the sandbox wants car-local times in opening hours). */
export function daysAhead(days: number): string {
  return `${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)}T10:00`;
}

/** Reserves the first available LA car 10..13 days ahead in the embedded sandbox; its uuid. */
export async function futureTrip(env: NodeJS.ProcessEnv): Promise<string> {
  const from = daysAhead(10);
  const to = daysAhead(13);
  const cars = await runCommand(['--sandbox', '--json', 'cars', '--city', 'la', '--from', from, '--to', to], { env });
  expect(cars.code, cars.stderr).toBe(0);
  const list = JSON.parse(cars.stdout) as { cars: Array<{ car_alias: string; is_available?: boolean }> };
  const alias = list.cars.find((c) => c.is_available)?.car_alias;
  expect(alias).toBeDefined();
  const reserved = await runCommand(['--sandbox', 'reserve', alias!, '--from', from, '--to', to, '-y'], { env });
  expect(reserved.code, reserved.stderr).toBe(0);
  return reserved.stdout.trim();
}

/** Runs a command in-process with its output readable while it runs (runCommand gives it only at the end). */
export function runLive(argv: string[], opts: { env: NodeJS.ProcessEnv; sleep?: (ms: number) => Promise<void> }) {
  const stdout = new FakeOut();
  const stderr = new FakeOut();
  const stdin = new PassThrough() as unknown as InStream;
  (stdin as unknown as PassThrough).end();
  const done = runCli(argv, { io: { stdin, stdout, stderr }, env: opts.env, sleep: opts.sleep });
  return { stdout, stderr, done };
}
