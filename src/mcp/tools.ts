// The MCP tools: one per user-level operation of the API, keyed by the operation's id in
// src/api/operations.ts, each in one toolset (catalog, account, links, booking), one file per
// toolset under tools/. Inputs are built from the request schemas of src/api/schemas.ts and
// checked again with the CLI's own parsers (tool-inputs.ts); results are compact, for a model
// to read (tool-results.ts): money once per amount in integer cents, car-local dates as the
// API sends them with the zone named once, a car as the few fields an agent needs. Writes go
// through the booking core (src/booking/) and the one consent rule of consent.ts.
import type { $ZodType } from 'zod/v4/core';
import type { Api } from '../api/endpoints.js';
import { OPERATIONS, type Operation } from '../api/operations.js';
import type { JournaledWrite } from '../booking/journaled-write.js';
import type { Target } from '../session/services.js';
import type { Output } from '../render/output.js';
import type { Confirmations } from './confirmation.js';
import { ACCOUNT_TOOLS } from './tools/account.js';
import { BOOKING_TOOLS } from './tools/booking.js';
import { CATALOG_TOOLS } from './tools/catalog.js';
import { LINKS_TOOLS, WAIT_TOOLS } from './tools/links.js';

export const TOOLSETS = ['catalog', 'account', 'links', 'booking'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** What a tool needs; built once per server, `api()` once per call (it carries the host's name). */
export interface ToolDeps {
  api(): Api;
  target: Target;
  /** Progress and notes of the journaled writes: the server's stderr, never the protocol stream. */
  out: Output;
  now(): Date;
  /** Present only when reserve and cancel_reservation are registered. */
  writer?: JournaledWrite;
  /** Present only when reserve and cancel_reservation are registered: quote and get_trip issue confirmations. */
  confirmations?: Confirmations;
  /** Present whenever this client can ask its user (2025-11-25 form elicitation, or a 2026-07-28
   *  input-required result): every reserve and cancel_reservation asks through it before writing. */
  askCustomer?(): ((message: string, field: string) => Promise<'accept' | 'decline' | 'cancel'>) | undefined;
  /** --require-customer: a write from a client that cannot ask is refused. */
  requireCustomer?: boolean;
  /** Present when the client supports URL-mode elicitation: offers a link (pay, add a card) to the user. */
  offerUrl?(): ((message: string, url: string) => Promise<'accept' | 'decline' | 'cancel'>) | undefined;
  /** Where a create or cancel says its idempotency key, for a resume step when the outcome is unknown. */
  onWriteKey?: (key: string) => void;
  /** Sleeps between the reads of wait_for_payment; the server's clock by default (tests inject one). */
  sleep?(ms: number): Promise<void>;
}

export interface ToolDef {
  name: string;
  /** The operation's id in OPERATIONS. */
  operation: string;
  toolset: Toolset;
  title: string;
  description: string;
  input: $ZodType;
  /** The server may run the call as an MCP Task when the client supports tasks (a long wait). */
  taskSupport?: 'optional';
  run(args: never, deps: ToolDeps): Promise<Record<string, unknown>>;
}

/** One tool per operation of the API (server.ts keys them by operation). */
export const TOOLS: readonly ToolDef[] = [...CATALOG_TOOLS, ...ACCOUNT_TOOLS, ...LINKS_TOOLS, ...BOOKING_TOOLS];

/**
 * Tools built on an operation that already has its own tool (wait_for_payment reads what
 * get_trip reads), each with that operation's row: its capability decides whether it is
 * offered, as for the others.
 */
export function moreTools(): Array<[Operation, ToolDef]> {
  return WAIT_TOOLS.map((tool) => {
    const op = OPERATIONS.find((o) => o.id === tool.operation);
    if (!op) throw new Error(`MCP tool ${tool.name} names an unknown operation: ${tool.operation}`);
    return [op, tool];
  });
}
