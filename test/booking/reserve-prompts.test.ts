// The interactive flow of `reserve` with a scripted Prompter: what is asked, in which order,
// with which choices (only cars free on the dates), and that answers become the request.
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { Api } from '../../src/api/endpoints.js';
import { makeSleep, resolveGlobals, type Context, type InStream } from '../../src/cli/context.js';
import { reserve } from '../../src/commands/reserve.js';
import { promptReservation, type Choice, type Prompter } from '../../src/commands/reserve-prompts.js';
import { Journal } from '../../src/store/journal.js';
import { FakeOut, TestHome } from '../helpers/cli.js';
import { ALIAS, FakeBookingApi, KEYS } from './fake-api.js';

type Answer = string | string[] | boolean | ((choices: Array<Choice<unknown>>) => unknown);

/** Answers prompts in order; records each message and its choices. */
class ScriptedPrompter implements Prompter {
  readonly asked: Array<{ kind: string; message: string; choices?: string[] }> = [];
  constructor(private readonly answers: Answer[]) {}
  private next(kind: string, message: string, choices?: Array<Choice<unknown>>): unknown {
    this.asked.push({ kind, message, choices: choices?.map((c) => c.name) });
    if (this.answers.length === 0) throw new Error(`unexpected prompt: ${message}`);
    const answer = this.answers.shift()!;
    if (typeof answer === 'function') return answer(choices ?? []);
    if (choices && typeof answer === 'string') {
      const found = choices.find((c) => c.value === answer || (typeof c.value === 'object' && (c.value as { car_alias?: string }).car_alias === answer));
      if (!found) throw new Error(`no choice ${answer} in ${message}`);
      return found.value;
    }
    return answer;
  }
  async select<T>(message: string, choices: Choice<T>[]) {
    return this.next('select', message, choices as Array<Choice<unknown>>) as T;
  }
  async search<T>(message: string, choices: Choice<T>[]) {
    return this.next('search', message, choices as Array<Choice<unknown>>) as T;
  }
  async input(message: string, opts: { validate?: (v: string) => true | string } = {}) {
    const value = this.next('input', message) as string;
    const ok = opts.validate?.(value) ?? true;
    if (ok !== true) throw new Error(`validation refused "${value}": ${ok}`);
    return value;
  }
  async checkbox<T>(message: string, choices: Choice<T>[]) {
    return this.next('checkbox', message, choices as Array<Choice<unknown>>) as T[];
  }
  async confirm(message: string) {
    return this.next('confirm', message) as boolean;
  }
}

let fake: FakeBookingApi;
let home: TestHome;
const cleanups: Array<() => unknown> = [];
beforeAll(async () => {
  fake = await FakeBookingApi.start();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  home = new TestHome();
  fake.requests.length = 0;
  fake.reservations.clear();
});
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
  home.cleanup();
});

function terminalContext(): { ctx: Context; stdout: FakeOut; stderr: FakeOut } {
  const stdout = new FakeOut(true);
  const stderr = new FakeOut(true);
  const stdin = new PassThrough() as unknown as InStream;
  stdin.isTTY = true;
  const io = { stdin, stdout, stderr };
  const env = home.env({ CARRENTAL_API_KEY: KEYS.write, NO_COLOR: '1' });
  const controller = new AbortController();
  const globals = resolveGlobals({ baseUrl: fake.baseUrl }, env, io);
  const ctx: Context = {
    io,
    env,
    globals,
    version: '0.0.0-test',
    now: () => new Date(),
    sleep: makeSleep(controller.signal),
    signal: controller.signal,
    canPrompt: () => true,
    onCleanup: (fn) => void cleanups.push(fn),
  };
  return { ctx, stdout, stderr };
}

describe('promptReservation', () => {
  it('asks city, dates, a free car, protection, mileage, delivery and address, extras and promo', async () => {
    const client = new ApiClient({ baseUrl: fake.baseUrl, timeoutMs: 5000, userAgent: 'test' });
    const prompter = new ScriptedPrompter(['miami', '2026-12-01 10:00', '2026-12-04T10:00', ALIAS, 'standard', 'unlimited', 'delivery', ' 5 Ocean Ave ', ['child_seat'], ' SPRING ']);
    const infos: string[] = [];
    const result = await promptReservation({}, { api: new Api(client, 'carrental/test'), prompter, info: (l) => infos.push(l) });
    await client.close();

    expect(prompter.asked.map((a) => a.kind)).toEqual(['select', 'input', 'input', 'search', 'select', 'select', 'select', 'input', 'checkbox', 'input']);
    expect(prompter.asked[1].message).toContain('America/New_York');
    const carChoices = prompter.asked[3].choices!;
    expect(carChoices).toHaveLength(1); // the unavailable car is not offered
    expect(carChoices[0]).toContain(`(${ALIAS})`);
    expect(carChoices[0]).toContain('$340.99 trip total');
    const [list] = fake.requestsOf('listCars');
    expect(Object.fromEntries(list.query)).toMatchObject({ city: 'miami', date_from: '2026-12-01T10:00', date_to: '2026-12-04T10:00' });
    expect(prompter.asked[4].choices).toEqual(['minimum — $12.00 per day', 'standard — $25.00 per day']);
    expect(result).toMatchObject({
      alias: ALIAS,
      from: '2026-12-01T10:00',
      to: '2026-12-04T10:00',
      protection: 'standard',
      mileage: 'unlimited',
      deliveryAddress: '5 Ocean Ave',
      extras: ['child_seat'],
      promo: 'SPRING',
    });
  });

  it('does not ask what the command line gave, and refuses a check-out before check-in', async () => {
    const client = new ApiClient({ baseUrl: fake.baseUrl, timeoutMs: 5000, userAgent: 'test' });
    const prompter = new ScriptedPrompter(['2026-12-01T09:00', 'pickup', '']);
    await expect(
      promptReservation({ alias: ALIAS, from: '2026-12-02T10:00', protection: 'minimum', mileage: 'limited', extras: [] }, { api: new Api(client, 'x'), prompter, info: () => {} }),
    ).rejects.toThrow(/check-out must be after check-in/);
    const ok = new ScriptedPrompter(['2026-12-04T10:00', 'pickup', '']);
    const result = await promptReservation({ alias: ALIAS, from: '2026-12-02T10:00', protection: 'minimum', mileage: 'limited', extras: [] }, { api: new Api(client, 'x'), prompter: ok, info: () => {} });
    await client.close();
    expect(ok.asked.map((a) => a.message)).toEqual([expect.stringMatching(/^Check-out/), 'Pickup or delivery', 'Promo code (optional, enter to skip)']);
    expect(result.promo).toBeUndefined();
    expect(result.deliveryAddress).toBeUndefined();
  });
});

describe('reserve on a terminal', () => {
  it('prompts for what is missing, shows the quote, confirms, then books', async () => {
    const { ctx, stdout, stderr } = terminalContext();
    const prompter = new ScriptedPrompter(['la', '2026-12-01T10:00', '2026-12-04T10:00', ALIAS, 'minimum', 'limited', 'pickup', [], '', true]);
    const code = await reserve({}, ctx, prompter);
    expect(code, stderr.text()).toBe(0);
    expect(prompter.asked.at(-1)).toMatchObject({ kind: 'confirm', message: expect.stringContaining('for $340.99 (plus a $250.00 refundable deposit)?') });
    expect(stderr.text()).toContain('Quote for');
    const [uuid] = [...fake.reservations.keys()];
    expect(stdout.text()).toContain(uuid);
    expect(JSON.parse(fake.requestsOf('create')[0].body)).toMatchObject({ car_alias: ALIAS, options: { delivery_type: 'pickup' }, extras: [] });
  });

  it('a "no" at the confirmation sends nothing and exits 1', async () => {
    const { ctx, stderr } = terminalContext();
    const prompter = new ScriptedPrompter([false]);
    const code = await reserve({ alias: ALIAS, from: '2026-12-01T10:00', to: '2026-12-04T10:00' }, ctx, prompter);
    expect(code).toBe(1);
    expect(stderr.text()).toContain('not reserved: nothing was sent');
    expect(prompter.asked).toHaveLength(1); // all values given: only the confirmation
    expect(fake.requestsOf('create')).toHaveLength(0);
    expect(await new Journal({ path: join(home.dir, 'state', 'journal.json') }).list()).toEqual([]);
  });
});
