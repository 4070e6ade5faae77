// `carrental doctor --contract [--write] [--junit FILE]`: checks every answer of a
// deployment against the spec (src/contract/), for CI. Findings go to stdout (words, or
// one JSON object with --json); --junit writes them as JUnit XML. Exit 0 when nothing is
// violated, 1 when something is (or a request failed, so something could not be checked).
// Its command is doctor (src/commands/doctor.ts loads this for --contract); it lives here,
// beside the services, prompts and confirmation it wires to src/contract's run.
import { resolve } from 'node:path';
import type { ApiResponse, RequestSpec } from '../api/client.js';
import type { ReservationCreateRequest } from '../api/schemas.js';
import type { Context } from './context.js';
import { requireKey, services } from './services.js';
import type { Answer } from '../contract/check.js';
import { toJunit } from '../contract/junit.js';
import { RULES } from '../contract/rules.js';
import { runContract, type ContractReport, type Met, type WriteFlow } from '../contract/run.js';
import { usageError } from '../errors.js';
import type { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { writeFileAtomic } from '../store/atomic-file.js';
import { requireConfirmable } from './confirm.js';
import { JournaledWrite } from '../booking/journaled-write.js';
import { BOOK_ANOTHER } from './hints.js';
import { clockNow } from './trip-dates.js';
import { inquirerPrompter, type Prompter } from './reserve-prompts.js';

export interface ContractInput {
  write?: boolean;
  junit?: string;
  require?: string[];
}

/** Checked before anything is sent. */
export function parseContractInput(input: ContractInput): { junit?: string } {
  if (input.require?.length) throw usageError('--require goes with a plain `doctor`; --contract checks every deployed operation it can reach');
  if (input.junit !== undefined && !input.junit.trim()) throw usageError('--junit needs a file name, e.g. --junit contract.xml');
  return { junit: input.junit === undefined ? undefined : resolve(input.junit) };
}

const WRITE_WARNING =
  'doctor --contract --write creates a real reservation (an unpaid one, about 300 days ahead), reads it back, asks for a payment link and cancels it; a cancellation fee may apply under the normal rules. It goes through the idempotency journal, so an interrupted run is finished by running it again.';

export function run(input: ContractInput, ctx: Context): Promise<number> {
  return contract(input, ctx, inquirerPrompter(ctx));
}

export async function contract(input: ContractInput, ctx: Context, prompter: Prompter): Promise<number> {
  const { junit } = parseContractInput(input);
  if (input.write) requireConfirmable(ctx, 'doctor --contract --write');
  const { api, client, out, target } = await services(ctx);
  let write: WriteFlow | undefined;
  if (input.write) {
    requireKey(target);
    out.warn(WRITE_WARNING);
    if (!ctx.globals.yes && !(await prompter.confirm('Create and cancel a real reservation?', false))) {
      out.info('not checked: nothing was sent');
      return 1;
    }
    write = journaledWrites(ctx, out, target);
  }
  const report = await runContract({
    client,
    hasKey: client.hasKey,
    // the API's clock (the sandbox's, when moved): far-future dates must be future there
    now: await clockNow(ctx, target),
    sleep: ctx.sleep,
    agentClient: api.agentClient,
    write,
    progress: (line) => out.progress(line),
    warn: (line) => out.warn(clean(line)),
  });
  out.clearProgress();
  const code = report.ok ? 0 : 1;
  if (junit) {
    await writeFileAtomic(junit, toJunit(report, { name: `carrental contract check of ${target.sandbox ? 'the sandbox' : target.baseUrl}`, timestamp: ctx.now(), secrets: [target.apiKey] }), { mode: 0o644 });
  }
  print(out, report, target.sandbox ? 'the embedded sandbox' : target.baseUrl, code);
  if (junit) out.info(`JUnit XML written to ${junit}`);
  return code;
}

function answerOf(res: ApiResponse<unknown>): Answer {
  return { status: res.status, headers: res.headers, text: res.text, body: res.body };
}

/** Create and cancel through the journal, as `reserve` and `cancel` do: a crash mid-way is finished by a rerun. */
function journaledWrites(ctx: Context, out: Output, target: Parameters<typeof requireKey>[0] & ConstructorParameters<typeof JournaledWrite>[2]): WriteFlow {
  const writer = new JournaledWrite(ctx, out, target, undefined, { bookAnother: BOOK_ANOTHER });
  return {
    create: async (body: ReservationCreateRequest, met: Met) => {
      const { client } = await services(ctx);
      // Not --new: a run interrupted between the create and the cancel is finished by the
      // next one, which resumes (pending) or replays (done, within the replay window) the
      // same create and then cancels that reservation, instead of booking another.
      const res = await writer.run({ operation: 'createReservation', target: body.car_alias, request: body }, (key, retry, onRetry) =>
        client.request<unknown>({ method: 'POST', path: '/my/reservation', body, headers: { 'idempotency-key': key }, auth: 'key', envelope: false, retry, onRetry: seeing(met, onRetry) }),
      );
      return answerOf(res);
    },
    cancel: async (uuid: string, met: Met) => {
      const { client } = await services(ctx);
      const res = await writer.run({ operation: 'cancelReservation', target: uuid, request: { uuid } }, (key, retry, onRetry) =>
        client.request<unknown>({ method: 'DELETE', path: `/my/reservation/${encodeURIComponent(uuid)}`, headers: { 'idempotency-key': key }, auth: 'key', envelope: false, retry, onRetry: seeing(met, onRetry) }),
      );
      return answerOf(res);
    },
  };
}

type OnRetry = NonNullable<RequestSpec<unknown>['onRetry']>;

/**
 * A retried 429 or 503 is told to the contract check (its Retry-After as the client read
 * it: whole seconds, else none), then retried as usual. The last answer, when the retries
 * run out, ends the command (exit 6) before any report.
 */
function seeing(met: Met, onRetry: OnRetry): OnRetry {
  return async (info) => {
    const f = info.failure;
    if (f.kind === 'status' && (f.status === 429 || f.status === 503)) met(f.status, f.retryAfterMs === undefined ? undefined : String(f.retryAfterMs / 1000));
    await onRetry(info);
  };
}

const MARK: Record<string, string> = { checked: 'ok', not_deployed: 'not deployed', skipped: 'skipped', failed: 'FAILED' };

function print(out: Output, report: ContractReport, where: string, code: number): void {
  if (out.json) {
    out.printJson({ ok: report.ok, exit_code: code, base_url: where, violations: report.violations, findings: report.findings, operations: report.operations, problems: report.problems });
    return;
  }
  out.line(`contract check of ${where} against the spec`);
  for (const op of report.operations) {
    const found = report.findings.filter((f) => f.operation === op.id);
    const mark = found.length ? 'VIOLATED' : MARK[op.status];
    out.line(`${mark.padEnd(12)} ${op.id.padEnd(34)} ${clean(op.request)}${op.status === 'checked' && !found.length ? '' : `: ${clean(op.detail)}`}`);
  }
  // grouped by operation and rule, each with the spec's words once
  const groups = new Map<string, typeof report.findings>();
  for (const f of report.findings) groups.set(`${f.operation}\u0000${f.rule}`, [...(groups.get(`${f.operation}\u0000${f.rule}`) ?? []), f]);
  if (groups.size) out.line('');
  for (const found of groups.values()) {
    const { operation, rule } = found[0];
    out.line(`${operation}: ${RULES[rule].title} (${rule})`);
    out.line(`  spec: "${found[0].spec}"`);
    for (const f of found) out.line(`  ${clean(f.path)}: saw ${f.saw}`);
  }
  for (const p of report.problems) out.warn(clean(p));
  if (report.ok) out.info('no violations: every answer checked is as the spec says');
  else out.info(`${report.violations} violation${report.violations === 1 ? '' : 's'}${report.problems.length ? `, ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}` : ''}`);
}
