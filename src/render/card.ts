// The saved card, masked as the API sends it: brand, last four digits, expiry.
import type { Card } from '../api/schemas.js';
import { clean } from '../text/sanitize.js';

export const formatExpiry = (card: Pick<Card, 'exp_month' | 'exp_year'>) => `${String(card.exp_month).padStart(2, '0')}/${card.exp_year}`;

/** A card is valid through the last day of its expiry month. */
export function cardExpired(card: Pick<Card, 'exp_month' | 'exp_year'>, now: Date): boolean {
  const month = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
  return card.exp_year * 12 + card.exp_month < month;
}

/** "visa •••• 4242, expires 12/2027". */
export function describeCard(card: Card, now: Date): string {
  return `${clean(card.card_brand)} •••• ${clean(card.last4)}, ${cardExpired(card, now) ? 'expired' : 'expires'} ${formatExpiry(card)}`;
}
