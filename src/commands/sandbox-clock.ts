// `carrental sandbox clock [show] | set <instant> | advance <duration>`: the sandbox's own
// clock (an offset from real time, kept in the state), so a test can reach a cancellation
// deadline, a trip's start or its end without waiting.
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';
import { usageError } from '../errors.js';
import { adminTarget } from '../cmdkit/sandbox-admin.js';
import { parseDuration } from '../input/duration.js';

export type ClockInput = InputOf<'sandbox clock'>;

export async function run(input: ClockInput, ctx: Context): Promise<number> {
  const action = input.action ?? 'show';
  let body: Record<string, unknown> | undefined;
  if (action === 'show') {
    if (input.value !== undefined) throw usageError('clock show takes no value');
  } else if (action === 'set') {
    const value = input.value;
    if (value === undefined) throw usageError('clock set needs an instant with a zone, e.g. 2026-12-01T09:00:00Z');
    if (!/(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(Date.parse(value))) {
      throw usageError(`"${value}" is not an ISO instant with a zone (Z or ±HH:MM)`, 'car-local times differ by city; the clock is one instant');
    }
    body = { now: new Date(value).toISOString() };
  } else if (action === 'advance') {
    if (input.value === undefined) throw usageError('clock advance needs a duration, e.g. 2d or 3h');
    body = { advance_seconds: parseDuration(input.value) };
  } else {
    throw usageError(`sandbox clock needs show, set or advance, got "${action}"`);
  }
  const target = await adminTarget(ctx, input);
  const clock = await target.call<{ now: string; offset_ms: number; local: Record<string, string> }>(body ? 'POST' : 'GET', '/clock', body);
  const out = output(ctx);
  if (ctx.globals.json) out.printJson(clock);
  else out.pairs([['now', clock.now], ['offset', `${clock.offset_ms / 1000} s`], ...Object.entries(clock.local).map(([city, t]): [string, string] => [`local ${city}`, t])]);
  return 0;
}
