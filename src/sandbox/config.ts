// The sandbox's knobs for what the spec leaves open. Defaults are generous enough for normal
// use; tests set them low (or switch promo codes off) through startSandbox's `config`, the
// CARRENTAL_SANDBOX_CONFIG environment variable (JSON) or PATCH /__sandbox/config.
// zod/mini, the flavour the CLI already loads: the full one would cost every embedded command.
import type * as Zod from 'zod/mini';
import { z } from '../api/zod.js';

const HHMM = z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM'));
const Count = z.int().check(z.minimum(0));

const SandboxConfigSchema = z.strictObject({
  /** Per-IP budget per UTC minute for car list, car detail and credential-free quotes. */
  catalogRateLimitPerMinute: Count,
  /** Per-IP budget per UTC minute for other anonymous, app-token and invalid-credential calls. */
  generalRateLimitPerMinute: Count,
  /** Per-key budget per UTC minute. */
  keyRateLimitPerMinute: Count,
  /** Reservations in `new` status a customer may hold at once. */
  maxActiveReservations: Count,
  /** Car-local pickup and return window, inclusive. */
  openingTime: HHMM,
  closingTime: HHMM,
  promoCodesEnabled: z.boolean(),
  minTripHours: z.int().check(z.minimum(1)),
  maxTripDays: z.int().check(z.minimum(1)),
  /** Cancelling at least this many hours before check-in is free; later costs one day's rent. */
  freeCancellationHours: Count,
  /** Days from cancellation to the expected refund date shown in payment_status. */
  refundDays: Count,
});

export type SandboxConfig = Zod.infer<typeof SandboxConfigSchema>;

export const DEFAULT_CONFIG: SandboxConfig = {
  catalogRateLimitPerMinute: 600,
  generalRateLimitPerMinute: 300,
  keyRateLimitPerMinute: 300,
  maxActiveReservations: 5,
  openingTime: '07:00',
  closingTime: '22:00',
  promoCodesEnabled: true,
  minTripHours: 24,
  maxTripDays: 90,
  freeCancellationHours: 48,
  refundDays: 7,
};

export const PartialConfigSchema = z.partial(SandboxConfigSchema);

/** Defaults, then CARRENTAL_SANDBOX_CONFIG, then the caller's options. */
export function resolveConfig(options: Partial<SandboxConfig> | undefined, env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  let fromEnv: Partial<SandboxConfig> = {};
  if (env.CARRENTAL_SANDBOX_CONFIG) {
    let raw: unknown;
    try {
      raw = JSON.parse(env.CARRENTAL_SANDBOX_CONFIG);
    } catch {
      throw new Error('CARRENTAL_SANDBOX_CONFIG is not valid JSON');
    }
    const parsed = PartialConfigSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`CARRENTAL_SANDBOX_CONFIG: ${z.prettifyError(parsed.error)}`);
    fromEnv = parsed.data;
  }
  const parsed = PartialConfigSchema.safeParse(options ?? {});
  if (!parsed.success) throw new Error(`sandbox config: ${z.prettifyError(parsed.error)}`);
  return { ...DEFAULT_CONFIG, ...fromEnv, ...parsed.data };
}
