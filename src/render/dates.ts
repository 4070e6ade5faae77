// Car-local dates are wall-clock strings in the car's city zone and are never converted;
// we only label them. Invoice created_at is UTC. (Reading a typed date: src/input/dates.ts.)
import { zoneOf } from '../input/dates.js';

/** "2026-12-01T10:00" + "la" -> "2026-12-01 10:00 America/Los_Angeles". */
export function formatLocal(value: string | null | undefined, city?: string | null): string {
  if (!value) return '';
  const zone = zoneOf(city);
  const text = value.replace('T', ' ');
  return zone ? `${text} ${zone}` : `${text} (car-local)`;
}

/** Invoice created_at: "2026-12-01T10:00" -> "2026-12-01 10:00 UTC". */
export function formatUtc(value: string | null | undefined): string {
  return value ? `${value.replace('T', ' ')} UTC` : '';
}
