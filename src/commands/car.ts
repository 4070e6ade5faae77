// `carrental car <alias>`: one car with its specs, prices, extras, protection plans and
// the date ranges it is blocked (car-local, labelled with the city's zone).
import { payloadOf } from '../api/payload.js';
import type { Car } from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { zoneOf } from '../input/dates.js';
import { formatLocal } from '../render/dates.js';
import { formatCents, formatUsd } from '../render/money.js';
import type { Output } from '../render/output.js';
import { clean, cleanText } from '../text/sanitize.js';
import { cell, NOT_STATED, stated } from '../render/table.js';
import { parseAlias } from '../input/parse.js';

export type CarInput = InputOf<'car'>;

export async function run(input: CarInput, ctx: Context): Promise<number> {
  const alias = parseAlias(input.alias);
  const { api, out } = await services(ctx);
  const res = await api.getCar(alias);
  const car = res.data;
  if (ctx.globals.json) {
    out.printJson(payloadOf(res));
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
  if (!out.tty) return pipeCar(car, out);
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
    out.prose(cleanText(car.description).trimEnd());
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
    out.table(['TYPE', 'TITLE', 'PER DAY'], p.extras.map((e) => [e.item_type, e.title, cell(e.price_day, formatCents)]), { alignRight: [2], ids: [0], text: [1] });
  } else out.line(p.extras ? 'none' : NOT_STATED);

  out.line();
  out.heading(`Blocked dates${zone ? ` (${zone})` : ' (car-local)'}`);
  const ranges = car.blocked_ranges ?? [];
  if (ranges.length) {
    // the zone is in the heading, so each date fits its column whole on a narrow terminal
    const local = (d: string) => d.replace('T', ' ');
    out.table(['FROM', 'TO', 'KIND'], ranges.map((r) => [cell(r.from, local), r.to === null ? 'open-ended' : cell(r.to, local), r.kind]), { text: [2] });
  } else out.line('none');
}

/**
 * A pipe: `label<TAB>value` lines with bare values (nothing for what the server left out),
 * then one record per plan, extra and blocked range, named by its first field, so that
 * `grep ^extra | cut -f2` gives the extras' types. No headings, no prose.
 */
function pipeCar(car: Car, out: Output): void {
  const p = car.prices;
  const c = p.car ?? {};
  const money = (v: number | undefined) => (v === undefined ? '' : formatCents(v));
  const plain = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  out.pairs([
    ['car alias', car.car_alias],
    ['name', car.name],
    ['city', plain(car.city)],
    ['zone', zoneOf(car.city) ?? ''],
    ['address', plain(car.address)],
    ['area', plain(car.area)],
    ['state', plain(car.state)],
    ['zip code', plain(car.zip_code)],
    ['year', plain(car.year)],
    ['make', plain(car.make)],
    ['model', plain(car.model)],
    ['body type', plain(car.body_type)],
    ['power', plain(car.power_type)],
    ['seats', plain(car.seats)],
    ['doors', plain(car.doors)],
    ['mpg', plain(car.mpg)],
    ['insurance coverage', car.insurance_coverage_usd == null ? '' : formatUsd(car.insurance_coverage_usd)],
    ['day rate', money(car.discounted_day_rate_cents ?? car.blended_day_rate_cents)],
    ['hot deal', car.is_hot_deal === undefined ? '' : car.is_hot_deal ? 'yes' : 'no'],
    ['next blocked', car.date_next_block ? car.date_next_block.replace('T', ' ') : ''],
    ['photos', car.photos ? String(car.photos.length) : ''],
    ['description', plain(car.description)],
    ['trip fee', money(p.trip_fee)],
    ['deposit', money(c.price_deposit)],
    ['delivery', money(c.price_delivery)],
    ['miles included', plain(c.miles_included)],
    ['extra mile', money(c.price_extra_mile)],
    ['unlimited mileage per day', money(c.price_unlimited_mileage)],
    ['minimum age', plain(c.min_age)],
    ['no young-driver fee from age', plain(c.min_age_without_young_driver_fee)],
  ]);
  const record = (fields: unknown[]) => out.record(fields);
  for (const [plan, day] of Object.entries(p.protection ?? {})) record(['plan', plan, formatCents(day)]);
  for (const e of p.extras ?? []) record(['extra', e.item_type ?? '', e.title ?? '', money(e.price_day)]);
  for (const r of car.blocked_ranges ?? []) record(['blocked', (r.from ?? '').replace('T', ' '), r.to ? r.to.replace('T', ' ') : '', r.kind ?? '']);
}
