// `carrental car <alias>`: one car with its specs, prices, extras, protection plans and
// the date ranges it is blocked (car-local, labelled with the city's zone).
import type { Car } from '../api/schemas.js';
import type { Context } from '../cli/context.js';
import { services } from '../cli/services.js';
import { formatLocal, zoneOf } from '../render/dates.js';
import { formatCents, formatUsd } from '../render/money.js';
import type { Output } from '../render/output.js';
import { cleanText } from '../render/sanitize.js';
import { cell, NOT_STATED, stated } from '../render/table.js';
import { parseAlias } from './parse.js';

export interface CarInput {
  alias?: string;
}

export async function run(input: CarInput, ctx: Context): Promise<number> {
  const alias = parseAlias(input.alias);
  const { api, out } = await services(ctx);
  const car = (await api.getCar(alias)).data;
  if (ctx.globals.json) {
    out.printJson(car);
    return 0;
  }
  printCar(car, out);
  return 0;
}

const orBlank = <T>(value: T | null | undefined, show: (v: T) => string = String): string | undefined =>
  value === null || value === undefined || value === '' ? undefined : show(value);

function joined(parts: Array<string | null | undefined>, sep: string): string | undefined {
  const kept = parts.filter((p): p is string => !!p);
  return kept.length ? kept.join(sep) : undefined;
}

export function printCar(car: Car, out: Output): void {
  const zone = zoneOf(car.city);
  out.heading(`${car.name} (${car.car_alias})`);
  out.pairs([
    ['City', orBlank(car.city, (c) => (zone ? `${c} (${zone})` : c))],
    ['Address', joined([car.address, car.area, joined([car.state, car.zip_code], ' ')], ', ')],
    ['Vehicle', joined([car.year, car.make, car.model], ' ')],
    ['Body type', orBlank(car.body_type)],
    ['Power', orBlank(car.power_type)],
    ['Seats', orBlank(car.seats)],
    ['Doors', orBlank(car.doors)],
    ['MPG', orBlank(car.mpg)],
    ['Insurance coverage', orBlank(car.insurance_coverage_usd, formatUsd)],
    ['Day rate', orBlank(car.discounted_day_rate_cents ?? car.blended_day_rate_cents, formatCents)],
    ['Hot deal', car.is_hot_deal ? 'yes' : undefined],
    ['Next blocked', orBlank(car.date_next_block, (d) => formatLocal(d, car.city))],
    ['Photos', car.photos?.length ? String(car.photos.length) : undefined],
  ]);
  if (car.description) {
    out.line();
    // the description is multi-line prose: keep its newlines, drop control characters
    out.line(cleanText(car.description).trimEnd());
  }

  // the spec requires `prices` but none of its members: what is left out reads "not stated"
  const p = car.prices;
  const c = p.car ?? {};
  out.line();
  out.heading('Prices');
  out.pairs([
    ['Trip fee', stated(p.trip_fee, formatCents)],
    ['Refundable deposit', stated(c.price_deposit, formatCents)],
    ['Delivery', stated(c.price_delivery, formatCents)],
    ['Miles included', stated(c.miles_included)],
    ['Extra mile', stated(c.price_extra_mile, formatCents)],
    ['Unlimited mileage', stated(c.price_unlimited_mileage, (v) => `${formatCents(v)} per day`)],
    ['Minimum age', stated(c.min_age)],
    ['No young-driver fee from age', stated(c.min_age_without_young_driver_fee)],
  ]);

  out.line();
  out.heading('Protection plans');
  const plans = Object.entries(p.protection ?? {});
  if (plans.length) out.table(['PLAN', 'PER DAY'], plans.map(([plan, day]) => [plan, formatCents(day)]), [1]);
  else out.line(p.protection ? 'none' : NOT_STATED);

  out.line();
  out.heading('Extras');
  if (p.extras?.length) {
    out.table(['TYPE', 'TITLE', 'PER DAY'], p.extras.map((e) => [e.item_type, e.title, cell(e.price_day, formatCents)]), [2]);
  } else out.line(p.extras ? 'none' : NOT_STATED);

  out.line();
  out.heading(`Blocked dates${zone ? ` (${zone})` : ' (car-local)'}`);
  const ranges = car.blocked_ranges ?? [];
  if (ranges.length) {
    out.table(
      ['FROM', 'TO', 'KIND'],
      ranges.map((r) => [cell(r.from, (d) => formatLocal(d, car.city)), r.to === null ? 'open-ended' : cell(r.to, (d) => formatLocal(d, car.city)), r.kind]),
    );
  } else out.line('none');
}
