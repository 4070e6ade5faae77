// Money is integer cents everywhere in the API; `_usd` fields are whole dollars.

const group = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** 123456 -> "$1,234.56"; -500 -> "-$5.00". Integer arithmetic only: no float rounding. */
export function formatCents(cents: number): string {
  if (!Number.isInteger(cents)) throw new TypeError(`cents must be an integer, got ${cents}`);
  const negative = cents < 0;
  const abs = Math.abs(cents);
  const dollars = Math.trunc(abs / 100);
  const rest = String(abs % 100).padStart(2, '0');
  return `${negative ? '-' : ''}$${group(String(dollars))}.${rest}`;
}

/** Whole dollars: 25000 -> "$25,000". */
export function formatUsd(dollars: number): string {
  if (!Number.isInteger(dollars)) throw new TypeError(`dollars must be an integer, got ${dollars}`);
  return `${dollars < 0 ? '-' : ''}$${group(String(Math.abs(dollars)))}`;
}

/** Cents that may be null (unknown): never shown as $0.00. */
export function formatCentsOrUnknown(cents: number | null | undefined): string {
  return cents === null || cents === undefined ? 'unknown' : formatCents(cents);
}
