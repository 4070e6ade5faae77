// The interactive part of `reserve`: on a terminal, whatever the command line left out
// (city, dates, car, options) is asked for. Prompts go through a small Prompter interface
// so tests can answer them; the real one is @inquirer/prompts bound to the command's
// streams (loaded only when a prompt is shown).
import type { ReserveDraft } from '../booking/create-request.js';
import type { Api } from '../api/endpoints.js';
import type { Car } from '../api/schemas.js';
import { CITIES, CITY_TIME_ZONES, type City } from '../api/enums.js';
import type { Context } from '../session/context.js';
import { CliError } from '../errors.js';
import { addLocalDays, isPastLocal, localNow, resolveDateInput } from '../input/dates.js';
import { formatCents } from '../render/money.js';
import { clean } from '../text/sanitize.js';
import { fetchAll } from '../api/page-walk.js';
import { plainPrompter } from './plain-prompts.js';
import { resolvePartialDates, zoneOrRefuse } from './trip-dates.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  select<T>(message: string, choices: Choice<T>[], defaultValue?: T): Promise<T>;
  /** A list filtered by what is typed (for long lists such as cars). */
  search<T>(message: string, choices: Choice<T>[]): Promise<T>;
  input(message: string, opts?: { defaultValue?: string; validate?: (value: string) => true | string }): Promise<string>;
  checkbox<T>(message: string, choices: Choice<T>[]): Promise<T[]>;
  confirm(message: string, defaultValue: boolean): Promise<boolean>;
}

/** What a confirmation takes: yes, no, or nothing (the default). */
const YES_NO_RE = /^(?:y|yes|n|no|)$/i;

/** Ctrl-C inside a prompt (raw mode swallows SIGINT) or an aborted command. */
function promptError(err: unknown): never {
  const name = (err as Error)?.name;
  if (name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'CancelPromptError') {
    throw new CliError('interrupted', 'interrupted');
  }
  throw err;
}

/**
 * @inquirer/prompts on the command's own streams. Prompts draw on stdout, except with
 * --json, where stdout carries only the payload and they draw on stderr. In the
 * accessible mode, plain-prompts.ts instead.
 */
export function inquirerPrompter(ctx: Context): Prompter {
  // the accessible mode asks in plain lines instead: numbered lists and typed answers
  if (ctx.globals.accessible) return plainPrompter(ctx);
  const context = { input: ctx.io.stdin, output: ctx.globals.json ? ctx.io.stderr : ctx.io.stdout, signal: ctx.signal };
  const load = () => import('@inquirer/prompts');
  return {
    async select(message, choices, defaultValue) {
      const { select } = await load();
      return select({ message, choices, default: defaultValue, pageSize: 10 }, context).catch(promptError);
    },
    async search(message, choices) {
      const { search } = await load();
      return search(
        {
          message,
          pageSize: 10,
          source: (term) => {
            const t = (term ?? '').toLowerCase().trim();
            return t ? choices.filter((c) => c.name.toLowerCase().includes(t)) : choices;
          },
        },
        context,
      ).catch(promptError);
    },
    async input(message, opts = {}) {
      const { input } = await load();
      return input({ message, default: opts.defaultValue, validate: opts.validate }, context).catch(promptError);
    },
    async checkbox(message, choices) {
      const { checkbox } = await load();
      return checkbox({ message, choices, pageSize: 10 }, context).catch(promptError);
    },
    async confirm(message, defaultValue) {
      // not inquirer's confirm: it takes any other answer ("yrs", "ok") as the default, a
      // "no" (or "yes") nobody said; an answer that is not yes or no is asked again
      const { input } = await load();
      const answer = await input({ message: `${message} ${defaultValue ? '(Y/n)' : '(y/N)'}`, validate: (v) => YES_NO_RE.test(v.trim()) || 'answer y (yes) or n (no)', theme: { validationFailureMode: 'clear' } }, context).catch(promptError);
      const word = answer.trim().toLowerCase();
      return word === '' ? defaultValue : word.startsWith('y');
    },
  };
}

export interface PromptedReservation extends ReserveDraft {
  alias: string;
  from: string;
  to: string;
  car: Car;
}

/** What the prompts need besides the draft. `now` is the API's clock (the sandbox's when moved). */
export interface PromptDeps {
  api: Api;
  prompter: Prompter;
  defaultCity?: string;
  info: (line: string) => void;
  now?: Date;
}

const shown = (value: string) => value.replace('T', ' ');

/**
 * Asks for the check-in and check-out, in the car's zone: absolute or relative forms; a
 * check-in in the past (car-local now) is refused in the prompt. The defaults are
 * tomorrow 10:00 and three days later, or the previous answers when asked again.
 */
export async function askDates(
  prompter: Prompter,
  zone: string,
  now: Date,
  given: { from?: string; to?: string; defaults?: { from: string; to: string } },
): Promise<{ from: string; to: string }> {
  const label = ` (YYYY-MM-DD HH:MM, or tomorrow 3pm, fri 10:00, +3d; ${zone})`;
  const read = (value: string, what: string): string => resolveDateInput(value, what, { now, zone });
  let from = given.from;
  if (from === undefined) {
    const fallback = given.defaults?.from ?? read('tomorrow 10:00', 'check-in');
    from = read(
      await prompter.input(`Check-in${label}`, {
        defaultValue: shown(fallback),
        validate: (value) => {
          try {
            const at = read(value, 'check-in');
            if (isPastLocal(at, zone, now)) return `${shown(at)} is in the past: it is ${shown(localNow(zone, now))} there now`;
            return true;
          } catch (err) {
            return (err as Error).message;
          }
        },
      }),
      'check-in',
    );
  }
  const checkin = from;
  let to = given.to;
  if (to === undefined) {
    const previous = given.defaults?.to;
    const fallback = previous && previous > checkin ? previous : addLocalDays(checkin, 3);
    to = read(
      await prompter.input(`Check-out${label}`, {
        defaultValue: shown(fallback),
        validate: (value) => {
          try {
            return read(value, 'check-out') > checkin ? true : `check-out must be after check-in (${shown(checkin)})`;
          } catch (err) {
            return (err as Error).message;
          }
        },
      }),
      'check-out',
    );
  }
  return { from: checkin, to };
}

function carChoice(car: Car): Choice<Car> {
  const total = car.display_trip_total_cents !== undefined ? ` — ${formatCents(car.display_trip_total_cents)} trip total` : '';
  const seats = car.seats !== undefined ? `, ${car.seats} seats` : '';
  return { name: `${clean(car.name)} (${clean(car.car_alias)})${seats}${total}`, value: car };
}

/**
 * Asks for the missing values in the order a person decides them: city, dates, a car
 * that is free on those dates, then its options. Options given as flags are not asked.
 */
export async function promptReservation(draft: ReserveDraft, deps: PromptDeps): Promise<PromptedReservation> {
  const { api, prompter } = deps;
  const now = deps.now ?? new Date();
  let car: Car | undefined;
  let city = draft.city;
  if (draft.alias) {
    car = (await api.getCar(draft.alias)).data;
    city = car.city ?? city;
  } else if (!city) {
    const fallback = CITIES.includes(deps.defaultCity as City) ? (deps.defaultCity as City) : 'la';
    city = await prompter.select(
      'City',
      CITIES.map((c) => ({ name: `${c} (${CITY_TIME_ZONES[c]})`, value: c as string })),
      fallback,
    );
  }
  // dates are read (and `tomorrow` means tomorrow) in the car's zone
  const zone = zoneOrRefuse(city);
  const given = resolvePartialDates(draft, now, zone);
  const { from, to } = await askDates(prompter, zone, now, { from: given.from, to: given.to });

  if (!car) {
    deps.info(`looking for cars free in ${city} from ${from.replace('T', ' ')} to ${to.replace('T', ' ')}…`);
    const page = await fetchAll({ city, date_from: from, date_to: to, limit: 200 }, (q) => api.listCars(q).then((r) => r.data));
    const free = page.cars.filter((c) => c.is_available === true);
    if (free.length === 0) {
      throw new CliError('conflict', `no car is available in ${city} from ${from.replace('T', ' ')} to ${to.replace('T', ' ')}`, {
        hint: 'try other dates, or the other city',
      });
    }
    free.sort((a, b) => (a.display_trip_total_cents ?? 0) - (b.display_trip_total_cents ?? 0));
    car = await prompter.search(`Car (${free.length} available; type to filter)`, free.map(carChoice));
  }
  // the spec requires none of the price members: a price left out reads "price not stated"
  const prices = car.prices;
  const c = prices.car ?? {};
  const money = (cents: number | undefined) => (cents === undefined ? 'price not stated' : formatCents(cents));
  const rates = prices.protection ?? {};
  const listed = (['minimum', 'standard'] as const).filter((plan) => plan in rates);

  const protection =
    draft.protection ??
    (await prompter.select(
      'Protection plan',
      (listed.length ? listed : (['minimum', 'standard'] as const)).map((plan) => ({ name: `${plan} — ${money(rates[plan])} per day`, value: plan })),
      'minimum',
    ));

  const mileage =
    draft.mileage ??
    (await prompter.select(
      'Mileage',
      [
        { name: `limited — ${c.miles_included ?? 'an unstated number of'} miles included, ${money(c.price_extra_mile)} per extra mile`, value: 'limited' as const },
        { name: `unlimited — ${money(c.price_unlimited_mileage)}`, value: 'unlimited' as const },
      ],
      'limited',
    ));

  let deliveryAddress = draft.deliveryAddress;
  if (deliveryAddress === undefined) {
    const where = car.address ? ` at ${clean(car.address)}` : '';
    const delivery = await prompter.select(
      'Pickup or delivery',
      [
        { name: `pickup${where}`, value: 'pickup' as const },
        { name: `delivery to an address — ${money(c.price_delivery)}`, value: 'delivery' as const },
      ],
      'pickup',
    );
    if (delivery === 'delivery') {
      deliveryAddress = (
        await prompter.input('Delivery address', { validate: (v) => (v.trim() ? true : 'an address is required for delivery') })
      ).trim();
    }
  }

  let extras = draft.extras;
  if (extras === undefined) {
    // an extra is chosen by its item type: one the server left without a type cannot be asked for
    const offered = (prices.extras ?? []).flatMap((e) => (e.item_type ? [{ ...e, item_type: e.item_type }] : []));
    extras =
      offered.length === 0
        ? []
        : await prompter.checkbox(
            'Extras (space to select, enter to continue)',
            offered.map((e) => ({ name: `${clean(e.title ?? e.item_type)} — ${money(e.price_day)} per day`, value: e.item_type })),
          );
  }

  let promo = draft.promo;
  if (promo === undefined) {
    const typed = (await prompter.input('Promo code (optional, enter to skip)')).trim();
    promo = typed || undefined;
  }

  return { ...draft, alias: car.car_alias, city: car.city ?? city, from, to, protection, mileage, deliveryAddress, extras, promo, car };
}

/** The answer the API refused, which a prompt can ask again; undefined when none can fix it. */
export type RefusedField = 'dates' | 'promo' | 'extras';

const REFUSED: Record<string, RefusedField> = {
  date_in_past: 'dates',
  outside_operating_hours: 'dates',
  trip_too_short: 'dates',
  trip_too_long: 'dates',
  invalid_date_range: 'dates',
  car_not_available: 'dates',
  promo_codes_disabled: 'promo',
  promo_code_not_found: 'promo',
  promo_code_invalid: 'promo',
  promo_already_used: 'promo',
  invalid_extra: 'extras',
};

export function refusedField(err: unknown): RefusedField | undefined {
  const code = err instanceof CliError ? err.api?.error_code : undefined;
  return code && Object.hasOwn(REFUSED, code) ? REFUSED[code] : undefined;
}

/** Asks again for only the refused answer; everything else the user chose is kept. */
export async function reaskRefused(field: RefusedField, r: PromptedReservation, deps: PromptDeps): Promise<PromptedReservation> {
  const { prompter } = deps;
  if (field === 'dates') {
    const zone = zoneOrRefuse(r.car.city ?? r.city);
    const dates = await askDates(prompter, zone, deps.now ?? new Date(), { defaults: { from: r.from, to: r.to } });
    return { ...r, ...dates, days: undefined };
  }
  if (field === 'promo') {
    const typed = (await prompter.input('Promo code (enter to go on without one)')).trim();
    return { ...r, promo: typed || undefined };
  }
  const offered = (r.car.prices.extras ?? []).flatMap((e) => (e.item_type ? [{ ...e, item_type: e.item_type }] : []));
  const price = (cents: number | undefined) => (cents === undefined ? 'price not stated' : formatCents(cents));
  const extras = offered.length
    ? await prompter.checkbox(
        'Extras (space to select, enter to continue)',
        offered.map((e) => ({ name: `${clean(e.title ?? e.item_type)} — ${price(e.price_day)} per day`, value: e.item_type })),
      )
    : [];
  return { ...r, extras };
}

/** A value as one shell word: bare when safe, else single-quoted. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The one-line command that makes the same reservation without prompts. */
export function equivalentCommand(cli: string, r: ReserveDraft & { alias: string; from: string; to: string }): string {
  const parts = [cli, 'reserve', shellWord(r.alias), '--from', shellWord(shown(r.from)), '--to', shellWord(shown(r.to))];
  if (r.protection) parts.push('--protection', r.protection);
  if (r.mileage) parts.push('--mileage', r.mileage);
  if (r.deliveryAddress) parts.push('--delivery-address', shellWord(r.deliveryAddress));
  for (const e of [...new Set(r.extras ?? [])].sort()) parts.push('--extra', shellWord(e));
  if (r.promo) parts.push('--promo', shellWord(r.promo));
  return parts.join(' ');
}
