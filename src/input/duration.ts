// A duration a person types (`sandbox clock advance 2d`), in seconds.
import { usageError } from '../errors.js';

const UNIT_SECONDS: Record<string, number> = { w: 604_800, d: 86_400, h: 3_600, m: 60, s: 1 };

/** `2d`, `1d12h`, `90m`, `-3h`: seconds. */
export function parseDuration(text: string): number {
  const m = /^(-?)((?:\d+[wdhms])+)$/.exec(text.trim());
  if (!m) throw usageError(`a duration is a number and a unit (w, d, h, m, s), e.g. 2d or 1d12h; got "${text}"`);
  let seconds = 0;
  for (const [, n, unit] of m[2].matchAll(/(\d+)([wdhms])/g)) seconds += Number(n) * UNIT_SECONDS[unit];
  if (seconds > 10 * 365 * 86_400) throw usageError(`${text} is more than ten years`);
  return m[1] ? -seconds : seconds;
}
