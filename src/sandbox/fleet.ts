// The fleet is a pure function of (seed, anchor day, size): never stored, each car generated
// when first asked for and cached per process. Car i draws from its own random stream, so a
// larger fleet only appends cars.
import { CITY_TIME_ZONES } from '../api/schemas.js';
import { addDaysToDate } from './clock.js';
import type { PricedCar } from './pricing.js';
import { createRng } from './prng.js';

export type City = 'la' | 'miami';
export type BlockKind = 'booked' | 'maintenance';

export interface BlockedRangeRec {
  from: string;
  to: string | null;
  kind: BlockKind;
}

export interface ExtraRec {
  item_type: string;
  price_day: number;
  title: string;
}

export interface CarRec extends PricedCar {
  car_id: number;
  car_alias: string;
  name: string;
  city: City;
  timeZone: string;
  make: string;
  make_id: number;
  model: string;
  model_id: number;
  body_type: string;
  year: string;
  power_type: string;
  doors: number;
  seats: number;
  mpg: number | null;
  insurance_coverage_usd: number | null;
  address: string | null;
  area: string | null;
  state: string | null;
  zip_code: string | null;
  description: string;
  is_hot_deal: boolean;
  prices: {
    car: {
      miles_included: number;
      min_age: number;
      min_age_without_young_driver_fee: number;
      price_delivery: number;
      price_deposit: number;
      price_extra_mile: number;
      price_unlimited_mileage: number;
    };
    extras: ExtraRec[];
    protection: { minimum: number; standard: number };
    trip_fee: number;
  };
  /** Fixture blocks (maintenance, bookings made outside the API); paid reservations add more. */
  blocked: BlockedRangeRec[];
  photos: string[];
  previews: string[];
}

export interface Fleet {
  /** Every car, in car_id order (generated on first use). */
  readonly cars: CarRec[];
  byAlias: { get(alias: string): CarRec | undefined };
  byId: { get(carId: number): CarRec | undefined };
}

interface ModelDef {
  model_id: number;
  model: string;
  body_type: string;
  rate: number;
  power: 'gas' | 'hybrid' | 'electric';
  doors: number;
  seats: number;
  mpg: number | null;
}

interface MakeDef {
  make_id: number;
  make: string;
  models: ModelDef[];
}

const MAKES: MakeDef[] = [
  { make_id: 1, make: 'Toyota', models: [
    { model_id: 101, model: 'Camry', body_type: 'sedan', rate: 5200, power: 'gas', doors: 4, seats: 5, mpg: 32 },
    { model_id: 102, model: 'Corolla', body_type: 'sedan', rate: 4500, power: 'gas', doors: 4, seats: 5, mpg: 35 },
    { model_id: 103, model: 'RAV4 Hybrid', body_type: 'suv', rate: 6500, power: 'hybrid', doors: 4, seats: 5, mpg: 40 },
    { model_id: 104, model: 'Sienna', body_type: 'minivan', rate: 8500, power: 'hybrid', doors: 4, seats: 8, mpg: 36 },
    { model_id: 105, model: 'Tacoma', body_type: 'pickup', rate: 7500, power: 'gas', doors: 4, seats: 5, mpg: 21 },
  ] },
  { make_id: 2, make: 'Honda', models: [
    { model_id: 201, model: 'Civic', body_type: 'hatchback', rate: 4600, power: 'gas', doors: 4, seats: 5, mpg: 36 },
    { model_id: 202, model: 'Accord', body_type: 'sedan', rate: 5400, power: 'hybrid', doors: 4, seats: 5, mpg: 44 },
    { model_id: 203, model: 'CR-V', body_type: 'suv', rate: 6200, power: 'gas', doors: 4, seats: 5, mpg: 30 },
    { model_id: 204, model: 'Odyssey', body_type: 'minivan', rate: 8200, power: 'gas', doors: 4, seats: 8, mpg: 22 },
  ] },
  { make_id: 3, make: 'Ford', models: [
    { model_id: 301, model: 'Mustang Convertible', body_type: 'convertible', rate: 9500, power: 'gas', doors: 2, seats: 4, mpg: 22 },
    { model_id: 302, model: 'Mustang GT', body_type: 'coupe', rate: 9000, power: 'gas', doors: 2, seats: 4, mpg: 19 },
    { model_id: 303, model: 'F-150', body_type: 'pickup', rate: 8800, power: 'gas', doors: 4, seats: 5, mpg: 20 },
    { model_id: 304, model: 'Transit Passenger Van', body_type: 'other', rate: 11000, power: 'gas', doors: 4, seats: 12, mpg: 15 },
  ] },
  { make_id: 4, make: 'Tesla', models: [
    { model_id: 401, model: 'Model 3', body_type: 'sedan', rate: 8000, power: 'electric', doors: 4, seats: 5, mpg: null },
    { model_id: 402, model: 'Model Y', body_type: 'suv', rate: 9200, power: 'electric', doors: 4, seats: 7, mpg: null },
    { model_id: 403, model: 'Cybertruck', body_type: 'pickup', rate: 15000, power: 'electric', doors: 4, seats: 5, mpg: null },
  ] },
  { make_id: 5, make: 'BMW', models: [
    { model_id: 501, model: '430i Coupe', body_type: 'coupe', rate: 11000, power: 'gas', doors: 2, seats: 4, mpg: 28 },
    { model_id: 502, model: 'X5', body_type: 'suv', rate: 13000, power: 'gas', doors: 4, seats: 5, mpg: 23 },
    { model_id: 503, model: 'Z4', body_type: 'convertible', rate: 14000, power: 'gas', doors: 2, seats: 2, mpg: 28 },
  ] },
  { make_id: 6, make: 'Polaris', models: [
    { model_id: 601, model: 'Slingshot', body_type: 'three-wheeler', rate: 12000, power: 'gas', doors: 0, seats: 2, mpg: 29 },
  ] },
  { make_id: 7, make: 'MINI', models: [
    { model_id: 701, model: 'Cooper', body_type: 'hatchback', rate: 5800, power: 'gas', doors: 2, seats: 4, mpg: 32 },
    { model_id: 702, model: 'Cooper Convertible', body_type: 'convertible', rate: 7200, power: 'gas', doors: 2, seats: 4, mpg: 30 },
  ] },
  { make_id: 8, make: 'Jeep', models: [
    { model_id: 801, model: 'Wrangler', body_type: 'suv', rate: 8500, power: 'gas', doors: 4, seats: 5, mpg: 20 },
    { model_id: 802, model: 'Gladiator', body_type: 'pickup', rate: 9500, power: 'gas', doors: 4, seats: 5, mpg: 19 },
  ] },
  { make_id: 9, make: 'Chrysler', models: [
    { model_id: 901, model: 'Pacifica Hybrid', body_type: 'minivan', rate: 8800, power: 'hybrid', doors: 4, seats: 7, mpg: 30 },
  ] },
  { make_id: 10, make: 'Chevrolet', models: [
    { model_id: 1001, model: 'Corvette', body_type: 'coupe', rate: 22000, power: 'gas', doors: 2, seats: 2, mpg: 19 },
  ] },
  { make_id: 11, make: 'Mercedes-Benz', models: [
    { model_id: 1101, model: 'Sprinter', body_type: 'other', rate: 16000, power: 'gas', doors: 4, seats: 12, mpg: 18 },
  ] },
  { make_id: 12, make: 'Kia', models: [
    { model_id: 1201, model: 'Soul', body_type: 'hatchback', rate: 4200, power: 'gas', doors: 4, seats: 5, mpg: 30 },
  ] },
];

const MODELS = MAKES.flatMap((mk) => mk.models.map((m) => ({ ...m, make: mk.make, make_id: mk.make_id })));

const EXTRAS: ExtraRec[] = [
  { item_type: 'child_seat', price_day: 1200, title: 'Child seat' },
  { item_type: 'gps', price_day: 800, title: 'GPS navigation' },
  { item_type: 'cooler', price_day: 500, title: 'Cooler' },
  { item_type: 'phone_mount', price_day: 300, title: 'Phone mount' },
  { item_type: 'beach_gear', price_day: 1000, title: 'Beach chairs and umbrella' },
];

const AREAS: Record<City, { area: string; zip: string; streets: string[] }[]> = {
  la: [
    { area: 'Santa Monica', zip: '90401', streets: ['Ocean Ave', 'Wilshire Blvd', 'Main St'] },
    { area: 'Venice', zip: '90291', streets: ['Abbot Kinney Blvd', 'Pacific Ave'] },
    { area: 'Downtown LA', zip: '90012', streets: ['Spring St', 'Broadway', 'Grand Ave'] },
    { area: 'Hollywood', zip: '90028', streets: ['Sunset Blvd', 'Vine St'] },
    { area: 'Pasadena', zip: '91101', streets: ['Colorado Blvd', 'Lake Ave'] },
    { area: 'LAX', zip: '90045', streets: ['Sepulveda Blvd', 'Century Blvd'] },
  ],
  miami: [
    { area: 'Brickell', zip: '33131', streets: ['Brickell Ave', 'SW 8th St'] },
    { area: 'South Beach', zip: '33139', streets: ['Collins Ave', 'Ocean Dr', 'Washington Ave'] },
    { area: 'Wynwood', zip: '33127', streets: ['NW 2nd Ave', 'N Miami Ave'] },
    { area: 'Coral Gables', zip: '33134', streets: ['Ponce de Leon Blvd', 'Miracle Mile'] },
    { area: 'MIA Airport', zip: '33126', streets: ['NW 42nd Ave', 'NW 25th St'] },
  ],
};

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const round100 = (cents: number) => Math.round(cents / 100) * 100;

const FIRST_CAR_ID = 1001;

function generateCar(seed: number, anchorDay: string, index: number): CarRec {
  const rng = createRng(seed, `car:${index}`);
  // The first cars walk the model list, so every make, model and body type exists in any
  // fleet of at least MODELS.length (28) cars.
  const m = index < MODELS.length ? MODELS[index] : rng.pick(MODELS);
  const city: City = index % 5 < 3 ? 'la' : 'miami';
  const carId = FIRST_CAR_ID + index;
  const year = rng.int(2019, 2025);
  const isHotDeal = rng.chance(0.1);
  const yearFactor = 0.9 + (year - 2019) * 0.04;
  let rate = round100(m.rate * yearFactor * (0.95 + rng.next() * 0.1));
  if (isHotDeal) rate = round100(rate * 0.85);
  const premium = rate >= 12000;
  const place = rng.pick(AREAS[city]);
  const hasAddress = !rng.chance(0.05);
  const extras = EXTRAS.filter(() => rng.chance(0.45));
  const alias = `${slug(m.make)}-${slug(m.model)}-${carId}`;
  const blocked: BlockedRangeRec[] = [];
  let cursor = rng.int(-12, 10);
  for (let n = rng.int(0, 3); n > 0; n--) {
    const length = rng.int(1, 6);
    const start = addDaysToDate(anchorDay, cursor);
    blocked.push({
      from: `${start}T${rng.pick(['09', '10', '12'])}:00`,
      to: `${addDaysToDate(start, length)}T${rng.pick(['10', '18'])}:00`,
      kind: rng.chance(0.75) ? 'booked' : 'maintenance',
    });
    cursor += length + rng.int(2, 20);
  }
  if (rng.chance(0.04)) {
    blocked.push({ from: `${addDaysToDate(anchorDay, cursor + rng.int(5, 30))}T08:00`, to: null, kind: 'maintenance' });
  }
  const photoBase = `https://images.carrental.example/cars/${alias}`;
  return {
    car_id: carId,
    car_alias: alias,
    name: `${m.make} ${m.model} ${year}`,
    city,
    timeZone: CITY_TIME_ZONES[city],
    make: m.make,
    make_id: m.make_id,
    model: m.model,
    model_id: m.model_id,
    body_type: m.body_type,
    year: String(year),
    power_type: m.power,
    doors: m.doors,
    seats: m.seats,
    mpg: m.mpg,
    insurance_coverage_usd: rng.pick([null, 25000, 50000, 100000]),
    address: hasAddress ? `${rng.int(100, 9999)} ${rng.pick(place.streets)}` : null,
    area: hasAddress ? place.area : null,
    state: city === 'la' ? 'CA' : 'FL',
    zip_code: hasAddress ? place.zip : null,
    description: `${year} ${m.make} ${m.model} (${m.body_type}, ${m.seats} seats, ${m.power}) in ${hasAddress ? place.area : city === 'la' ? 'Los Angeles' : 'Miami'}.`,
    is_hot_deal: isHotDeal,
    day_rate_cents: rate,
    prices: {
      car: {
        miles_included: rng.pick([150, 200, 250]),
        min_age: premium ? 25 : 21,
        min_age_without_young_driver_fee: premium ? 30 : 25,
        price_delivery: rng.pick([4900, 5900, 7900, 9900]),
        price_deposit: premium ? 50000 : rng.pick([20000, 25000, 30000]),
        price_extra_mile: rng.pick([35, 45, 55, 75]),
        price_unlimited_mileage: Math.max(1000, round100(rate * 0.2)),
      },
      extras,
      // `minimum` is included in the rent, so the default quote is rent plus trip fee,
      // exactly the car list's display_trip_total_cents.
      protection: { minimum: 0, standard: premium ? 3500 : rng.pick([1500, 1900, 2500]) },
      trip_fee: rng.pick([2500, 2900, 3500]),
    },
    blocked,
    photos: [1, 2, 3].map((n) => `${photoBase}/${n}.jpg`),
    previews: [1, 2, 3].map((n) => `${photoBase}/${n}-thumb.jpg`),
  };
}

const fleetCache = new Map<string, Fleet>();

export function buildFleet(seed: number, anchorDay: string, size: number): Fleet {
  const cacheKey = `${seed}:${anchorDay}:${size}`;
  const cached = fleetCache.get(cacheKey);
  if (cached) return cached;
  // Cars are generated when first asked for: a one-shot command that shows one trip
  // builds its car, not the whole fleet (car i depends only on seed, anchor and i).
  const made = new Map<number, CarRec>();
  const car = (index: number): CarRec | undefined => {
    if (!Number.isInteger(index) || index < 0 || index >= size) return undefined;
    let c = made.get(index);
    if (c === undefined) {
      c = generateCar(seed, anchorDay, index);
      made.set(index, c);
    }
    return c;
  };
  let all: CarRec[] | null = null;
  const fleet: Fleet = {
    get cars() {
      all ??= Array.from({ length: size }, (_, i) => car(i) as CarRec);
      return all;
    },
    byId: { get: (carId) => car(carId - FIRST_CAR_ID) },
    byAlias: {
      get: (alias) => {
        // An alias ends with its car id (`toyota-corolla-1004`).
        const c = car(Number(/-(\d+)$/.exec(alias)?.[1] ?? Number.NaN) - FIRST_CAR_ID);
        return c?.car_alias === alias ? c : undefined;
      },
    },
  };
  // A reset re-anchors the fleet; old fleets are dropped rather than kept forever.
  if (fleetCache.size > 8) fleetCache.clear();
  fleetCache.set(cacheKey, fleet);
  return fleet;
}
