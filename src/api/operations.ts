// Every operation of the API with the spec's machine-readable markers (Versioning).
// One table serves the sandbox's router and OpenAPI document, `doctor` and completions.
// Kept free of imports so that light code paths can read it.

export type Capability = 'read_only' | 'booking_write';
export type AuthClass = 'none' | 'optional' | 'key';

export interface Operation {
  /** Stable identifier, used for fault injection and doctor's report. */
  id: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path relative to {base_url}, with `{param}` placeholders. */
  path: string;
  summary: string;
  auth: AuthClass;
  availability: 'available' | 'planned';
  phase: 1 | 2 | 3;
  capability: Capability | null;
  /** The build accepts a customer key on this operation. */
  keyEnabled: boolean;
  idempotent?: boolean;
  agentClient?: boolean;
}

export const OPERATIONS: readonly Operation[] = [
  { id: 'listCars', method: 'GET', path: '/cars', summary: 'Search cars', auth: 'none', availability: 'available', phase: 1, capability: null, keyEnabled: false },
  { id: 'getCar', method: 'GET', path: '/cars/{alias}', summary: 'Read one car with its blocked date ranges', auth: 'none', availability: 'available', phase: 1, capability: null, keyEnabled: false },
  { id: 'quote', method: 'POST', path: '/reservation/quote', summary: 'Compute a price quote', auth: 'optional', availability: 'available', phase: 1, capability: 'read_only', keyEnabled: true },
  { id: 'getProfile', method: 'GET', path: '/my/profile', summary: 'Read the profile', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true },
  { id: 'getVerification', method: 'GET', path: '/my/verification', summary: 'Read verification status', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true },
  { id: 'listCards', method: 'GET', path: '/my/billing/cards', summary: 'Read the saved card', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true },
  { id: 'cardAddLink', method: 'POST', path: '/my/billing/cards/add-link', summary: 'Get a link to add or replace a card', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true, agentClient: true },
  { id: 'listTrips', method: 'GET', path: '/my/trips', summary: 'List trips', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true },
  { id: 'getReservation', method: 'GET', path: '/my/reservation/{uuid}', summary: 'Read a reservation', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true },
  { id: 'listReservationInvoices', method: 'GET', path: '/my/reservation/{uuid}/invoices', summary: 'List the invoices of a reservation', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true },
  { id: 'getInvoice', method: 'GET', path: '/my/billing/invoice/{uuid}', summary: 'Read one invoice', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true },
  { id: 'createReservation', method: 'POST', path: '/my/reservation', summary: 'Create an unpaid reservation', auth: 'key', availability: 'planned', phase: 3, capability: 'booking_write', keyEnabled: true, idempotent: true },
  { id: 'cancelReservation', method: 'DELETE', path: '/my/reservation/{uuid}', summary: 'Cancel a reservation', auth: 'key', availability: 'planned', phase: 3, capability: 'booking_write', keyEnabled: true, idempotent: true },
  { id: 'paymentLink', method: 'POST', path: '/my/reservation/{uuid}/payment-link', summary: 'Get a link to pay rent or deposit', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true, agentClient: true },
  { id: 'extensionPrice', method: 'POST', path: '/my/billing/reservation/{uuid}/extension/price', summary: 'Preview the price of an extension', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true },
  { id: 'extensionLink', method: 'POST', path: '/my/reservation/{uuid}/extension-link', summary: 'Get a link to confirm an extension', auth: 'key', availability: 'planned', phase: 2, capability: 'read_only', keyEnabled: true, agentClient: true },
];

export const API_VERSION = '1.0.0-phase1';

/**
 * The operation a request is for: the id of the entry whose method and path template
 * match (a `{param}` matches one non-empty segment); undefined for a path no operation has.
 * A query and trailing slashes are ignored. Compares segments, no regular expressions: it
 * runs on the error path of every command.
 */
export function operationOf(method: string, path: string): string | undefined {
  const bare = path.split('?')[0].replace(/\/+$/, '') || '/';
  const segments = bare.split('/');
  const verb = method.toUpperCase();
  return OPERATIONS.find((op) => op.method === verb && matches(op.path.split('/'), segments))?.id;
}

function matches(template: string[], segments: string[]): boolean {
  return template.length === segments.length && template.every((part, i) => (part.startsWith('{') ? segments[i] !== '' : part === segments[i]));
}
