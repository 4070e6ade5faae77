// The booking rules both front ends share (the `reserve` and `cancel` commands, the MCP
// tools): a create or cancel goes through the journaled write (journaled-write.ts), and
// an answer that may be an old one (a replay or a resumed command) is checked against the
// reservation as it reads now, so that a reservation cancelled since is never reported as
// live. The front ends only decide how to ask, confirm and show.
import type { ApiResponse } from '../api/client.js';
import type { Api } from '../api/endpoints.js';
import type { ReservationCreateRequest, Trip } from '../api/schemas.js';
import { CliError } from '../errors.js';
import type { Output } from '../render/output.js';
import type { JournalEntry } from '../store/journal.js';
import { formatAge, type JournaledWrite, type WriteCommand } from './journaled-write.js';
import { readReservation } from './read.js';

export interface BookingDeps {
  api: Api;
  writer: JournaledWrite;
  /** Progress and warnings (stderr). */
  out: Output;
  now(): Date;
}

/**
 * The command a create is journaled as: the one "never twice" rule of both front ends (the
 * `reserve` command, the MCP `reserve` tool). Its identity is the canonical request (car,
 * dates, options, extras, promo: build it with buildCreateRequest) and the credential, so:
 *
 * - `fresh` false or absent: a create identical to one this install sent with the same
 *   credential is never sent under a new key while that one is live. If it finished
 *   (2xx) within the replay window (CARRENTAL_REPLAY_WINDOW, 10 min), createReservation
 *   replays its key and answers that booking (`reused`, its uuid, its status read back
 *   now, `cancelledSince` if it was cancelled since); if its outcome is still unknown
 *   (pending), the run resumes it with its key. This holds whatever `key` the caller
 *   passes: a front end's own key (the MCP confirmation's, a script's
 *   --idempotency-key) only names a command that starts anew, so an agent that timed out
 *   and quoted again, or a second server process, gets the first booking back.
 * - `fresh` true (the CLI's `--new`, the MCP `book_another: true`): a finished identical
 *   create is not replayed; a new booking is sent (under `key` if given, else a new
 *   UUID). While an identical one is pending, `fresh` is refused (usage error): its
 *   outcome is unknown and a second key could book twice.
 *
 * `writer.pending(createCommand(body, { key }))` tells beforehand (writing nothing) which
 * entry the run would resume or replay, so a front end can skip its price check or its
 * confirmation for a replay.
 */
export function createCommand(body: ReservationCreateRequest, opts: { key?: string; fresh?: boolean } = {}): WriteCommand {
  return { operation: 'createReservation', target: body.car_alias, request: body, key: opts.key, fresh: opts.fresh, keyYields: true };
}

export function cancelCommand(uuid: string, key?: string): WriteCommand {
  return { operation: 'cancelReservation', target: uuid, request: { uuid }, key };
}

/** What a create's answer means at the moment it is reported. */
export interface Created {
  uuid: string;
  /**
   * The reservation's status: `new` for one this call created; for an answer that may be
   * an old one, the status read back now (undefined when that read failed).
   */
  status: string | undefined;
  /** The key was journaled before this run: the answer may be the original one. */
  reused: boolean;
  /** When this same command had already been answered (this run replayed it). */
  doneBefore?: string;
  /** A concurrent run of the same command was answered first: this run joined it. */
  answeredByAnotherRun: boolean;
  /** How long ago the earlier run booked it, when the reservation has been cancelled since. */
  cancelledSince?: string;
  key: string;
  response: ApiResponse<string>;
}

export interface CreateOptions {
  /**
   * Read the status back even for an answer to a fresh key. The server keeps idempotent
   * results permanently, so a key the journal forgot can still answer an old reservation.
   */
  alwaysReadBack?: boolean;
  /** The key, once journaled (for a front end that must say how to resume). */
  onKey?: (key: string) => void;
  /**
   * Shows the result; runs before the journal marks the entry done, so that a crash before
   * the user saw it leaves the entry to replay. A cancelled-since answer is passed too.
   */
  report?: (created: Created) => void | Promise<void>;
}

/**
 * Creates the reservation under the journal's rules (never twice, across restarts) and says
 * what it is now: a replayed answer whose reservation was cancelled since has `cancelledSince`.
 */
export async function createReservation(deps: BookingDeps, command: WriteCommand, body: ReservationCreateRequest, opts: CreateOptions = {}): Promise<Created> {
  let created: Created | undefined;
  await deps.writer.run(
    command,
    (key, retry, onRetry) => {
      opts.onKey?.(key);
      return deps.api.createReservation(body, key, retry, { onRetry });
    },
    {
      report: async (response, info) => {
        const uuid = response.data;
        let status: string | undefined = 'new';
        if (info.reused || opts.alwaysReadBack) {
          // The answer may be the original one: the reservation can have been paid or
          // cancelled since, and a cancelled one must not be reported as a booking.
          try {
            status = (await deps.api.reservation(uuid)).data.status;
          } catch (err) {
            status = undefined;
            deps.out.warn(`could not read the reservation's current status (${err instanceof CliError ? err.message : String(err)})`);
          }
        }
        const since = info.doneBefore ?? info.entry.createdAt;
        created = {
          uuid,
          status,
          reused: info.reused,
          doneBefore: info.doneBefore,
          answeredByAnotherRun: !!info.doneBefore && info.entry.state === 'pending',
          cancelledSince: status === 'cancelled' ? formatAge(deps.now().getTime() - Date.parse(since)) : undefined,
          key: info.entry.key,
          response,
        };
        await opts.report?.(created);
      },
    },
  );
  return created!;
}

/** What a cancel is about to do, before anything is sent (for the front end to confirm). */
export interface CancelPlan {
  uuid: string;
  command: WriteCommand;
  /** The journal entry this cancel resumes or replays. */
  resuming?: JournalEntry;
  before: ApiResponse<Trip>;
  /** Cancelled already, by something other than this command: nothing is to be sent. */
  alreadyCancelled: boolean;
}

export async function planCancel(deps: BookingDeps, uuid: string, key?: string): Promise<CancelPlan> {
  const command = cancelCommand(uuid, key);
  const resuming = await deps.writer.pending(command);
  if (resuming) deps.writer.announceResume(resuming);
  const before = await readReservation(deps.api, uuid, deps.out);
  return { uuid, command, resuming, before, alreadyCancelled: !resuming && before.data.status === 'cancelled' };
}

export interface Cancelled {
  key: string;
  /** The reservation read after the cancellation; undefined when that read failed (`readError`). */
  after?: ApiResponse<Trip>;
  readError?: unknown;
}

export async function commitCancel(deps: BookingDeps, plan: CancelPlan, opts: { onKey?: (key: string) => void } = {}): Promise<Cancelled> {
  let used = '';
  await deps.writer.run(plan.command, (key, retry, onRetry) => {
    used = key;
    opts.onKey?.(key);
    return deps.api.cancelReservation(plan.uuid, key, retry, { onRetry }).then((r) => r.data);
  });
  try {
    return { key: used, after: await readReservation(deps.api, plan.uuid, deps.out) };
  } catch (err) {
    // The cancellation committed; only the follow-up read failed.
    return { key: used, readError: err };
  }
}
