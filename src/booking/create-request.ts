// The reservation a user asked for, as both front ends build it: `carrental reserve` from its
// flags and prompts, the MCP `reserve` tool from its arguments.
import type { ReservationCreateRequest } from '../api/schemas.js';

/** What `reserve` needs; anything undefined is asked for. */
export interface ReserveDraft {
  alias?: string;
  city?: string;
  /** Car-local YYYY-MM-DDTHH:MM, or a relative form as typed until the city is known. */
  from?: string;
  to?: string;
  /** `--days N` while `from` is still relative. */
  days?: number;
  protection?: 'minimum' | 'standard';
  mileage?: 'limited' | 'unlimited';
  deliveryAddress?: string;
  /** undefined: not given on the command line (asked); []: none. */
  extras?: string[];
  promo?: string;
}

/**
 * The ReservationCreateRequest, in one canonical spelling for everything the server
 * treats as equal, so the same booking is the same command (same journal entry, same
 * body under the same key): every option spelled out with its default, extras as a
 * sorted set, dates as YYYY-MM-DDTHH:MM (parseLocalDateTime), strings trimmed, the promo
 * code upper-cased, no delivery address for a pickup.
 */
export function buildCreateRequest(d: ReserveDraft & { alias: string; from: string; to: string }): ReservationCreateRequest {
  const body: ReservationCreateRequest = {
    car_alias: d.alias,
    date_checkin: d.from,
    date_checkout: d.to,
    options: {
      protection_plan: d.protection ?? 'minimum',
      mileage_type: d.mileage ?? 'limited',
      delivery_type: d.deliveryAddress ? 'delivery' : 'pickup',
      ...(d.deliveryAddress ? { delivery_address: d.deliveryAddress } : {}),
    },
    extras: [...new Set(d.extras ?? [])].sort(),
  };
  if (d.promo) body.promo_code = d.promo;
  return body;
}
