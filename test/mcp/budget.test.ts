// What the MCP server costs an agent's context, measured as the bytes of the minified
// JSON-RPC answers it sends (docs/agents.md has the figures), and the words it uses: tool
// names and arguments, never the command line's flags.
import { describe, expect } from 'vitest';
import { FROM, TO, test } from '../booking/sandbox.js';
import { errorOf, serve, structured } from './in-process.js';

/** The budgets of issue 23, in bytes. */
export const BUDGET = { listReadOnly: 24 * 1024, listBooking: 32 * 1024, search: 10 * 1024, flow: 40 * 1024 };


/** A command-line flag or command in any text an agent reads. */
const CLI_WORDS = /(^|[\s(`"'])--[a-z]|carrental [a-z]/;

function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const v of value) yield* strings(v);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) yield* strings(v);
}

/** Every property of a JSON schema, with its path, recursively. */
function* properties(schema: any, path: string): Generator<[string, any]> {
  for (const [name, prop] of Object.entries<any>(schema?.properties ?? {})) {
    yield [`${path}.${name}`, prop];
    yield* properties(prop, `${path}.${name}`);
    if (prop.items) yield* properties(prop.items, `${path}.${name}[]`);
  }
}

describe('context budgets', () => {
  test('tools/list: at most 24 KB read-only and 32 KB with booking; every input described; no CLI words', async ({ sb, home }) => {
    for (const [argv, budget, count] of [[[], BUDGET.listReadOnly, 15], [['--allow-booking'], BUDGET.listBooking, 17]] as const) {
      const s = await serve(sb, home, { argv: [...argv] });
      const { tools } = await s.client.listTools();
      const size = s.lastSize();
      await s.stop();
      expect(tools).toHaveLength(count);
      expect(size, `tools/list ${argv.join(' ')}`).toBeLessThanOrEqual(budget);
      for (const tool of tools) {
        for (const [path, prop] of properties(tool.inputSchema, tool.name)) expect(prop.description, `${path} has no description`).toBeTruthy();
        for (const text of strings(tool)) expect(text, tool.name).not.toMatch(CLI_WORDS);
      }
    }
  });

  test('search_cars with a city and dates: at most 10 KB, compact cars, a page with has_more and next_offset; fields asks for more', async ({ sb, home }) => {
    const s = await serve(sb, home);
    try {
      const r = await s.call('search_cars', { city: 'la', date_from: FROM, date_to: TO });
      expect(s.lastSize()).toBeLessThanOrEqual(BUDGET.search);
      const page = structured(r);
      expect(page.cars).toHaveLength(10);
      expect(page).toMatchObject({ has_more: true, next_offset: 10 });
      expect(Object.keys(page.cars[0]).sort()).toEqual(
        ['body_type', 'car_alias', 'city', 'discounted_day_rate_cents', 'display_trip_total_cents', 'is_available', 'name', 'seats'].sort(),
      );
      const more = structured(await s.call('search_cars', { city: 'la', offset: 10, fields: ['make', 'year'] }));
      expect(more.cars[0]).toHaveProperty('make');
      expect(more.cars[0].car_alias).not.toBe(page.cars[0].car_alias);
    } finally {
      await s.stop();
    }
  });

  test('search → get_car → quote → reserve → payment_link → get_trip: at most 40 KB together, money once per amount, no CLI words', async ({ sb, home }) => {
    const s = await serve(sb, home);
    let total = 0;
    const results: unknown[] = [];
    const step = async (name: string, args: Record<string, unknown>) => {
      const r = await s.call(name, args);
      expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
      total += s.lastSize();
      results.push(r);
      return structured(r);
    };
    try {
      const page = await step('search_cars', { city: 'la', date_from: FROM, date_to: TO });
      const alias = page.cars.find((c: { is_available: boolean }) => c.is_available).car_alias;
      await step('get_car', { car_alias: alias });
      const quote = await step('quote', { car_alias: alias, date_checkin: FROM, date_checkout: TO });
      const booked = await step('reserve', { car_alias: alias, date_checkin: FROM, date_checkout: TO, confirmation: quote.confirmation });
      await step('payment_link', { reservation_uuid: booked.reservation_uuid });
      await step('get_trip', { reservation_uuid: booked.reservation_uuid });
    } finally {
      await s.stop();
    }
    expect(total).toBeLessThanOrEqual(BUDGET.flow);
    const json = JSON.stringify(results);
    expect(json).not.toContain('_formatted');
    for (const text of strings(results)) expect(text).not.toMatch(CLI_WORDS);
  });

  test('errors speak tool, not CLI: a date in the past names date_checkin, not a flag; so do an empty alias and a missing key', async ({ sb, home }) => {
    const s = await serve(sb, home);
    try {
      const alias = structured(await s.call('search_cars', { city: 'la' })).cars[0].car_alias;
      const r = await s.call('quote', { car_alias: alias, date_checkin: '2026-11-01T10:00', date_checkout: '2026-11-03T10:00' });
      expect(r.isError).toBe(true);
      expect(errorOf(r).next_step).toContain('date_checkin');
      const empty = await s.call('get_car', { car_alias: ' ' });
      expect(errorOf(empty).message).toBe('car_alias is empty: search_cars lists the car aliases');
      for (const text of strings([r, empty])) expect(text).not.toMatch(CLI_WORDS);
    } finally {
      await s.stop();
    }
    const keyless = await serve(sb, home, { argv: [], key: '' });
    try {
      const r = await keyless.call('list_trips', {});
      expect(r.isError).toBe(true);
      expect(errorOf(r).next_step).toMatch(/^no API key is configured for this server/);
      for (const text of strings(r)) expect(text).not.toMatch(CLI_WORDS);
    } finally {
      await keyless.stop();
    }
  });
});
