// The rules `doctor --contract` checks, each in the spec's own words
// (spec/car-rental-api.md), so a finding says what was promised, not what carrental thinks.
// Free of imports: the JUnit writer and the tests read it too.

export type RuleId =
  | 'envelope'
  | 'required'
  | 'type'
  | 'integer-cents'
  | 'car-local-date'
  | 'utc-date'
  | 'date-form'
  | 'closed-set'
  | 'retry-after'
  | 'not-found'
  | 'write-flow';

export interface Rule {
  id: RuleId;
  /** Short name for a report line. */
  title: string;
  /** The spec's words. */
  spec: string;
}

export const RULES: Record<RuleId, Rule> = {
  envelope: {
    id: 'envelope',
    title: 'envelope or bare array',
    spec: 'Responses use the envelope `{"data": <payload>}`, except the invoice list of a reservation, which is a bare JSON array.',
  },
  required: {
    id: 'required',
    title: 'required fields',
    spec: 'Resources and their fields: a field marked "required" (or "Required: yes") is always present.',
  },
  type: {
    id: 'type',
    title: 'field types',
    spec: 'Resources and their fields: each field has the type its table gives (string, integer, boolean, array, object, "or null" where allowed).',
  },
  'integer-cents': {
    id: 'integer-cents',
    title: 'integer cents',
    spec: 'Money: integer US dollar cents everywhere, including quote fields without a `_cents` suffix. Fields ending in `_usd` are whole dollars.',
  },
  'car-local-date': {
    id: 'car-local-date',
    title: 'car-local dates',
    spec: 'Dates: car-local wall-clock strings in the form `YYYY-MM-DDTHH:MM`. They are never converted to UTC.',
  },
  'utc-date': {
    id: 'utc-date',
    title: 'UTC invoice dates',
    spec: 'Exception: invoice `created_at` is UTC in the same form.',
  },
  'date-form': {
    id: 'date-form',
    title: 'day dates',
    spec: '`date` (PaymentStatus, refund only) is car-local `YYYY-MM-DD`; `drivers_license.expires_at` is `YYYY-MM-DD` or null.',
  },
  'closed-set': {
    id: 'closed-set',
    title: 'closed value sets',
    spec: 'Fields with listed values take only those values (for example `city`: `la` or `miami`; invoice `billing_status`: `ISSUED`, `PAID`, `CANCELLED`, `HOLD`; `currency`: constant `USD`).',
  },
  'retry-after': {
    id: 'retry-after',
    title: 'Retry-After on 429 and 503',
    spec: '429 and 503 responses carry `Retry-After` (integer seconds, minimum 1); the caller waits that long.',
  },
  'not-found': {
    id: 'not-found',
    title: '404 for an unknown uuid',
    spec: "A 404 for a reservation or invoice is returned for an unknown one and for another customer's one.",
  },
  'write-flow': {
    id: 'write-flow',
    title: 'create, read back, pay link, cancel',
    spec: 'POST /my/reservation: Response 200: `{data: <reservation uuid string>}`. DELETE /my/reservation/{uuid}: Response 200: `{data: "OK"}` (constant `OK`), meaning the cancellation committed; hold and refund state are read from `cancellation_outcome` of the reservation.',
  },
};
