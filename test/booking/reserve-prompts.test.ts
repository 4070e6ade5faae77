import { randomUUID } from 'node:crypto';
// The interactive flow of `reserve` with a scripted Prompter: what is asked, in which order,
// with which choices (only cars free on the dates), and that answers become the request.
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { Api } from '../../src/api/endpoints.js';
import { makeSleep, type Context, type InStream } from '../../src/session/context.js';
import { resolveGlobals } from '../../src/cmdkit/globals.js';
import { reserve } from '../../src/commands/reserve.js';
import { promptReservation, type Choice, type Prompter } from '../../src/cmdkit/reserve-prompts.js';
import { Journal } from '../../src/store/journal.js';
import { FakeOut } from '../helpers/cli.js';
import { SANDBOX_NOW, TestSandbox } from '../helpers/sandbox-admin.js';
import { ALIAS, FAKE_NOW, KEYS, test as fakeTest } from './fake-api.js';

type Answer = string | string[] | boolean | ((choices: Array<Choice<unknown>>) => unknown);

/** Answers prompts in order; records each message and its choices. */
class ScriptedPrompter implements Prompter {
  readonly asked: Array<{ kind: string; message: string; choices?: string[]; defaultValue?: string }> = [];
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
  async input(message: string, opts: { defaultValue?: string; validate?: (v: string) => true | string } = {}) {
    const typed = this.next('input', message) as string;
    this.asked.at(-1)!.defaultValue = opts.defaultValue;
    // as on a terminal: enter alone takes the offered default
    const value = typed === '' && opts.defaultValue !== undefined ? opts.defaultValue : typed;
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

const test = fakeTest
  /** What the command left to run at its end (ctx.onCleanup), run after the test. */
  .extend('cleanups', async ({ home: _ }, { onCleanup }) => {
    const cleanups: Array<() => unknown> = [];
    onCleanup(async () => {
      for (const fn of cleanups.splice(0)) await fn();
    });
    return cleanups;
  })
  /** A command context on a terminal (prompts allowed) against the fake. */
  .extend('terminalContext', async ({ fake, home, cleanups }) => () =>
    onTerminal(fake.baseUrl, home.env({ CARRENTAL_API_KEY: KEYS.write, NO_COLOR: '1' }), FAKE_NOW, cleanups),
  );

/** A command context whose streams are terminals (so prompts are allowed), and those streams. */
function onTerminal(baseUrl: string, env: NodeJS.ProcessEnv, now: () => Date, cleanups: Array<() => unknown>): { ctx: Context; stdout: FakeOut; stderr: FakeOut } {
  const stdout = new FakeOut(true);
  const stderr = new FakeOut(true);
  const stdin = new PassThrough() as unknown as InStream;
  stdin.isTTY = true;
  const io = { stdin, stdout, stderr };
  const controller = new AbortController();
  const ctx: Context = {
    io,
    env,
    globals: resolveGlobals({ baseUrl }, env, io),
    version: '0.0.0-test',
    now,
    sleep: makeSleep(controller.signal),
    signal: controller.signal,
    canPrompt: () => true,
    onCleanup: (fn) => void cleanups.push(fn),
  };
  return { ctx, stdout, stderr };
}

describe('promptReservation', () => {
  test('asks city, dates, a free car, protection, mileage, delivery and address, extras and promo', async ({ fake }) => {
    const client = new ApiClient({ baseUrl: fake.baseUrl, timeoutMs: 5000, userAgent: 'test' });
    const prompter = new ScriptedPrompter(['miami', '2026-12-01 10:00', '2026-12-04T10:00', ALIAS, 'standard', 'unlimited', 'delivery', ' 5 Ocean Ave ', ['child_seat'], ' SPRING ']);
    const infos: string[] = [];
    const result = await promptReservation({}, { api: new Api(client, 'carrental/test'), prompter, info: (l) => infos.push(l), now: FAKE_NOW() });
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

  test('does not ask what the command line gave, and refuses a check-out before check-in', async ({ fake }) => {
    const client = new ApiClient({ baseUrl: fake.baseUrl, timeoutMs: 5000, userAgent: 'test' });
    const prompter = new ScriptedPrompter(['2026-12-01T09:00', 'pickup', '']);
    await expect(
      promptReservation({ alias: ALIAS, from: '2026-12-02T10:00', protection: 'minimum', mileage: 'limited', extras: [] }, { api: new Api(client, 'x'), prompter, info: () => {}, now: FAKE_NOW() }),
    ).rejects.toThrow(/check-out must be after check-in/);
    const ok = new ScriptedPrompter(['2026-12-04T10:00', 'pickup', '']);
    const result = await promptReservation({ alias: ALIAS, from: '2026-12-02T10:00', protection: 'minimum', mileage: 'limited', extras: [] }, { api: new Api(client, 'x'), prompter: ok, info: () => {}, now: FAKE_NOW() });
    await client.close();
    expect(ok.asked.map((a) => a.message)).toEqual([expect.stringMatching(/^Check-out/), 'Pickup or delivery', 'Promo code (optional, enter to skip)']);
    expect(result.promo).toBeUndefined();
    expect(result.deliveryAddress).toBeUndefined();
  });
});

describe('reserve on a terminal', () => {
  test('prompts for what is missing, shows the quote, confirms, then books', async ({ fake, terminalContext }) => {
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

  test('a "no" at the confirmation sends nothing and exits 1', async ({ fake, home, terminalContext }) => {
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

const sandboxTest = test
  .extend('sb', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sb = await TestSandbox.start();
    onCleanup(() => sb.close());
    return sb;
  })
  // reset before each test, as the fake is
  .extend('reset', { auto: true }, async ({ sb }) => {
    await sb.reset();
  })
  /** A command context on a terminal (prompts allowed) against the sandbox, on its clock. */
  .extend('sandboxTerminal', async ({ sb, home, cleanups }) => () =>
    onTerminal(sb.baseUrl, home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1' }), () => SANDBOX_NOW, cleanups),
  );

describe('reserve prompts against the sandbox clock (2026-11-01 11:00 in Los Angeles)', () => {
  const firstCar = (choices: Array<Choice<unknown>>) => choices[0].value;

  sandboxTest('the check-in prompt refuses a time already past there, and offers tomorrow 10:00 and three days later', async ({ sb }) => {
    const client = new ApiClient({ baseUrl: sb.baseUrl, timeoutMs: 5000, userAgent: 'test' });
    const api = new Api(client, 'x');
    const past = new ScriptedPrompter(['la', '2026-11-01 09:00']);
    await expect(promptReservation({}, { api, prompter: past, info: () => {}, now: SANDBOX_NOW })).rejects.toThrow(
      /2026-11-01 09:00 is in the past: it is 2026-11-01 11:00 there now/,
    );
    const defaults = new ScriptedPrompter(['la', '', '', firstCar, 'minimum', 'limited', 'pickup', [], '']);
    const result = await promptReservation({}, { api, prompter: defaults, info: () => {}, now: SANDBOX_NOW });
    await client.close();
    expect(defaults.asked[1]).toMatchObject({ message: expect.stringContaining('tomorrow 3pm'), defaultValue: '2026-11-02 10:00' });
    expect(defaults.asked[2]).toMatchObject({ defaultValue: '2026-11-05 10:00' });
    expect(result).toMatchObject({ from: '2026-11-02T10:00', to: '2026-11-05T10:00' });
  });

  sandboxTest('relative answers are read in the city zone', async ({ sb }) => {
    const client = new ApiClient({ baseUrl: sb.baseUrl, timeoutMs: 5000, userAgent: 'test' });
    const prompter = new ScriptedPrompter(['miami', '+2d 11:00', '+4d 9:30', firstCar, 'minimum', 'limited', 'pickup', [], '']);
    const result = await promptReservation({}, { api: new Api(client, 'x'), prompter, info: () => {}, now: SANDBOX_NOW });
    await client.close();
    expect(result).toMatchObject({ from: '2026-11-03T11:00', to: '2026-11-05T09:30' });
  });

  sandboxTest('asks again only the field the API refused (dates, then promo), and prints the one-line command even when not booked', async ({ sandboxTerminal }) => {
    const { ctx, stderr } = sandboxTerminal();
    const prompter = new ScriptedPrompter([
      'la',
      '2026-11-02 05:00', // before opening hours: the quote refuses the dates
      '2026-11-04 10:00',
      firstCar,
      'standard',
      'limited',
      'pickup',
      [],
      'NOPE', // unknown promo: the quote refuses it
      '2026-11-02 10:00', // dates asked again
      '', // check-out: the previous answer is offered
      '', // promo asked again: none
      false, // and then not booked
    ]);
    const code = await reserve({}, ctx, prompter);
    expect(code, stderr.text()).toBe(1);
    const messages = prompter.asked.map((a) => a.message);
    expect(messages.filter((m) => m.startsWith('Check-in'))).toHaveLength(2);
    expect(messages.filter((m) => m.startsWith('Protection'))).toHaveLength(1);
    expect(prompter.asked[10]).toMatchObject({ defaultValue: '2026-11-04 10:00' });
    expect(messages.filter((m) => m.startsWith('Promo'))).toHaveLength(2);
    // folded to the terminal's 120 columns: read as one line
    expect(stderr.text().replace(/\n/g, ' ')).toMatch(/warning: Outside operating hours: .*asking again/);
    expect(stderr.text().replace(/\n/g, ' ')).toMatch(/warning: Promo code not found: .*asking again/);
    // a command too long for the line goes whole onto a line of its own, to be copied
    expect(stderr.text()).toMatch(/the same without prompts:\s+carrental reserve [a-z0-9-]+ --from '2026-11-02 10:00' --to '2026-11-04 10:00' --protection standard --mileage limited\n/);
  });
  sandboxTest('when the create itself refuses the dates (the car taken meanwhile), asks again for the dates only, quotes again and books', async ({ sb, sandboxTerminal }) => {
    const { ctx, stdout, stderr } = sandboxTerminal();
    let alias = '';
    const takeTheCar = async () => {
      // another customer books the very car and dates between the quote and the create
      const res = await fetch(`${sb.baseUrl}/my/reservation`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${sb.keys.other_customer}`, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ car_alias: alias, date_checkin: '2026-11-02T10:00', date_checkout: '2026-11-04T10:00', options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } }),
      });
      expect(res.status).toBe(200);
      // ... and pays it: an unpaid reservation holds no calendar slot, a paid one does
      const uuid = ((await res.json()) as { data: string }).data;
      await sb.admin('POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
      return true;
    };
    const prompter = new ScriptedPrompter([
      'la',
      '2026-11-02 10:00',
      '2026-11-04 10:00',
      // a car free on the first dates (the list) that is free on the second ones too
      async (choices: Array<Choice<unknown>>) => {
        const later = await fetch(`${sb.baseUrl}/cars?city=la&date_from=2026-11-10T10:00&date_to=2026-11-12T10:00&limit=200`);
        const free = new Set(((await later.json()) as { data: { cars: Array<{ car_alias: string; is_available?: boolean }> } }).data.cars.filter((c) => c.is_available).map((c) => c.car_alias));
        const car = choices.map((c) => c.value as { car_alias: string }).find((c) => free.has(c.car_alias))!;
        alias = car.car_alias;
        return car;
      },
      'minimum',
      'limited',
      'pickup',
      [],
      '',
      takeTheCar, // confirm: yes, but the car is gone by the time the create arrives
      '2026-11-10 10:00', // the dates, asked again
      '2026-11-12 10:00',
      true, // confirm the new quote
    ]);
    const code = await reserve({}, ctx, prompter);
    expect(code, stderr.text()).toBe(0);
    const messages = prompter.asked.map((a) => a.message);
    expect(messages.filter((m) => m.startsWith('Check-in'))).toHaveLength(2);
    expect(messages.filter((m) => m.startsWith('Protection'))).toHaveLength(1);
    expect(stderr.text()).toMatch(/nothing was\s+booked, asking again/);
    expect(stdout.text()).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(stderr.text()).toContain("--from '2026-11-10 10:00' --to '2026-11-12 10:00'");
  });
});

describe('what is asked again, and the equivalent command', () => {
  it('maps each refusal to the one answer that fixes it', async () => {
    const { refusedField } = await import('../../src/cmdkit/reserve-prompts.js');
    const { CliError } = await import('../../src/errors.js');
    const refused = (code: string) => refusedField(new CliError('api', 'x', { api: { status: 400, error_code: code } }));
    expect(['date_in_past', 'outside_operating_hours', 'trip_too_short', 'trip_too_long', 'car_not_available'].map(refused)).toEqual(Array(5).fill('dates'));
    expect(['promo_code_not_found', 'promo_code_invalid', 'promo_already_used', 'promo_codes_disabled'].map(refused)).toEqual(Array(4).fill('promo'));
    expect(refused('invalid_extra')).toBe('extras');
    expect(refused('invalid_credentials')).toBeUndefined();
    expect(refused('toString')).toBeUndefined();
  });
  it('quotes what the shell would split', async () => {
    const { equivalentCommand } = await import('../../src/cmdkit/reserve-prompts.js');
    expect(
      equivalentCommand('carrental --sandbox', { alias: 'kia-soul-1037', from: '2026-12-01T10:00', to: '2026-12-04T10:00', protection: 'standard', mileage: 'limited', deliveryAddress: "5 O'Hara St", extras: ['gps', 'child_seat'], promo: 'SAVE50' }),
    ).toBe("carrental --sandbox reserve kia-soul-1037 --from '2026-12-01 10:00' --to '2026-12-04 10:00' --protection standard --mileage limited --delivery-address '5 O'\\''Hara St' --extra child_seat --extra gps --promo SAVE50");
  });
});
