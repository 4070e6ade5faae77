import { z } from '../../api/zod.js';
import { NO_RETRY } from '../../api/client.js';
import { zoneOf } from '../../input/dates.js';
import { CONFIRMATION_MINUTES } from '../confirmation.js';
import {
  alias,
  COMPACT_CAR,
  describe,
  MONEY,
  Q,
  SEARCH_PAGE,
  type SearchArgs,
  searchInput,
  searchQuery,
  type TripArgs,
  tripInput,
  tripRequest,
} from '../tool-inputs.js';
import { binding, pickFields } from '../tool-results.js';
import { publicData } from '../results.js';
import type { ToolDef } from '../tools.js';

export const CATALOG_TOOLS: readonly ToolDef[] = [
  {
    name: 'search_cars',
    operation: 'listCars',
    toolset: 'catalog',
    title: 'Search cars',
    description:
      `Search the catalog by city, dates and type. With date_from and date_to each car says is_available and display_trip_total_cents (rent plus trip fee). ` +
      `Compact cars (add fields for more), ${SEARCH_PAGE} per page by default; has_more and next_offset page on. ${MONEY} Anonymous.`,
    input: searchInput,
    async run(args: SearchArgs, deps) {
      const query = searchQuery(args, deps.target.profileData.city);
      const page = (await deps.api().listCars(query)).data;
      const fields = [...COMPACT_CAR, ...(args.fields ?? [])];
      const next = page.has_more ? (query.offset ?? 0) + page.cars.length : undefined;
      return publicData({
        cars: page.cars.map((car) => pickFields(car, fields)),
        total: page.total,
        has_more: page.has_more,
        ...(next !== undefined ? { next_offset: next } : {}),
      });
    },
  },
  {
    name: 'get_car',
    operation: 'getCar',
    toolset: 'catalog',
    title: 'Car detail',
    description: `One car: specs, prices (deposit, extras, protection plans per day), and the car-local ranges it is blocked. ${MONEY} Anonymous.`,
    input: z.strictObject({ car_alias: describe(Q.car_alias, 'car alias (search_cars)') }),
    async run(args: { car_alias: string }, deps) {
      const { photos, previews: _previews, ...car } = (await deps.api().getCar(alias(args.car_alias))).data;
      return publicData({ ...car, time_zone: zoneOf(car.city), photo: photos?.[0] });
    },
  },
  {
    name: 'quote',
    operation: 'quote',
    toolset: 'catalog',
    title: 'Price a trip',
    description:
      `The price of a trip, line by line. final_total is the trip price; deposit_cents is refundable and in no total. ${MONEY} ` +
      'A quote reserves nothing and fixes no price. When booking is offered it returns a confirmation for exactly this request and total: ' +
      `show the customer the total and deposit, and only once they agree pass it to reserve (valid ${CONFIRMATION_MINUTES} minutes, for one booking).`,
    input: z.strictObject(tripInput),
    async run(args: TripArgs, deps) {
      const body = tripRequest(args);
      const api = deps.api();
      // the car's city names the dates' zone; best effort, the quote is what matters
      const car = api.getCar(body.car_alias, { retry: NO_RETRY }).then((r) => r.data, () => undefined);
      const quote = (await api.quote(body, !!deps.target.apiKey)).data;
      const city = (await car)?.city ?? undefined;
      const confirm = deps.confirmations?.issue('reserve', binding(deps, body), { total: quote.final_total, deposit: quote.deposit_cents });
      return {
        car_alias: body.car_alias,
        date_checkin: body.date_checkin,
        date_checkout: body.date_checkout,
        time_zone: zoneOf(city),
        options: body.options,
        ...(body.extras?.length ? { extras: body.extras } : {}),
        ...quote,
        ...(confirm ? { confirmation: confirm.confirmation, confirmation_expires_at: confirm.expires_at } : {}),
        note: confirm
          ? 'Show the customer final_total and deposit_cents; call reserve with these same arguments and the confirmation only once they agree.'
          : 'A quote reserves nothing and fixes no price.',
      };
    },
  },
];
