// Promo codes of the sandbox, relative to the anchor day so their validity is stable in tests.
import { addDaysToDate } from './clock.js';
import type { PromoDiscount } from './pricing.js';

export interface PromoCodeDef extends PromoDiscount {
  min_days: number;
  /** One use per customer; checked only when the caller is known (a key on quote, always on create). */
  one_time: boolean;
  valid_from: string;
  valid_until: string | null;
  description: string;
}

function promoCodes(anchorDay: string): PromoCodeDef[] {
  return [
    { code: 'WELCOME10', kind: 'percent', value: 10, min_days: 1, one_time: true, valid_from: addDaysToDate(anchorDay, -365), valid_until: null, description: '10 % off the rent, once per customer' },
    { code: 'SAVE50', kind: 'fixed', value: 5000, min_days: 3, one_time: false, valid_from: addDaysToDate(anchorDay, -365), valid_until: null, description: '$50 off the rent of trips of 3 days or more' },
    { code: 'FIRSTRIDE', kind: 'percent', value: 15, min_days: 1, one_time: true, valid_from: addDaysToDate(anchorDay, -365), valid_until: null, description: '15 % off, once per customer (the demo customer has used it)' },
    { code: 'SPRING20', kind: 'percent', value: 20, min_days: 1, one_time: false, valid_from: addDaysToDate(anchorDay, -120), valid_until: addDaysToDate(anchorDay, -30), description: 'expired 30 days before the anchor day' },
  ];
}

/** Codes are matched case-insensitively, ignoring surrounding blanks. */
export function findPromo(anchorDay: string, code: string): PromoCodeDef | undefined {
  const wanted = code.trim().toUpperCase();
  return promoCodes(anchorDay).find((p) => p.code === wanted);
}
