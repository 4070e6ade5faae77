// Enumerations of the API, free of imports so that the command tree (loaded for --help)
// and the completions can use them without loading zod.
export const CITIES = ['la', 'miami'] as const;
export type City = (typeof CITIES)[number];
export const CITY_TIME_ZONES: Record<City, string> = {
  la: 'America/Los_Angeles',
  miami: 'America/New_York',
};
export const BODY_TYPES = ['sedan', 'coupe', 'suv', 'hatchback', 'convertible', 'pickup', 'minivan', 'three-wheeler', 'other'] as const;
export const ORDER_BY = ['price_asc', 'price_desc'] as const;
export const PROTECTION_PLANS = ['minimum', 'standard'] as const;
export const MILEAGE_TYPES = ['limited', 'unlimited'] as const;
export const DELIVERY_TYPES = ['pickup', 'delivery'] as const;
export const PAYMENT_TYPES = ['rent', 'deposit'] as const;
export const INVOICE_STATUSES = ['ISSUED', 'PAID', 'CANCELLED', 'HOLD'] as const;
