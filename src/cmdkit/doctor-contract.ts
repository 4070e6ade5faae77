// `carrental doctor --contract [--write] [--junit FILE]`: checks every answer of a
// deployment against the spec (src/contract/), for CI. Findings go to stdout (words, or
// one JSON object with --json); --junit writes them as JUnit XML. Exit 0 when nothing is
// violated, 1 when something is (or a request failed, so something could not be checked).
// Its command is doctor (src/commands/doctor.ts loads this for --contract); it lives here,
// beside the services, prompts and confirmation it wires to src/contract's run.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ApiResponse, RequestSpec } from '../api/client.js';
import type { ReservationCreateRequest } from '../api/schemas.js';
import type { Context } from '../session/context.js';
import { requireKey, services } from '../session/services.js';
import type { Answer } from '../contract/check.js';
import { toJunit } from '../contract/junit.js';
import { RULES } from '../contract/rules.js';
import { runContract, type ContractReport, type Met, type WriteFlow } from '../contract/run.js';
import { usageError } from '../errors.js';
import type { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { writeFileAtomic, writeFileAtomicSync } from '../store/atomic-file.js';
import { credentialFingerprint } from '../store/journal.js';
import { stateDir } from '../store/paths.js';
import { requireConfirmable } from './confirm.js';
import { formatAge, journalBaseUrl, JournaledWrite } from '../booking/journaled-write.js';
import { cliWriteWords } from './rerun.js';
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
    const flow = journaledWrites(ctx, out, target);
    // what an interrupted run left is finished or undone first, however long ago it ran
    await flow.recover();
    write = flow;
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

/**
 * A create of the write flow, recorded before it is sent (with its idempotency key) and
 * dropped once its reservation is cancelled: `contract-writes.json` in the state
 * directory. The journal alone forgets a finished create after the replay window, and a
 * rerun on another day sends another request (its dates follow the clock), so without
 * this a run killed between its create and its cancel left a real reservation active.
 */
interface LedgerEntry {
  api: string;
  credential: string;
  key: string;
  request: ReservationCreateRequest;
  startedAt: string;
  uuid?: string;
}

class Ledger {
  constructor(private readonly file: string) {}

  read(): LedgerEntry[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    try {
      const data = JSON.parse(text) as { entries?: unknown };
      return Array.isArray(data.entries) ? (data.entries as LedgerEntry[]) : [];
    } catch {
      return [];
    }
  }

  write(entries: LedgerEntry[]): void {
    if (entries.length === 0 && !existsSync(this.file)) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileAtomicSync(this.file, `${JSON.stringify({ version: 1, entries }, null, 2)}\n`, { mode: 0o600 });
  }

  change(fn: (entries: LedgerEntry[]) => LedgerEntry[]): void {
    this.write(fn(this.read()));
  }
}

/** Create and cancel through the journal, as `reserve` and `cancel` do: a crash mid-way is finished by a rerun. */
function journaledWrites(ctx: Context, out: Output, target: Parameters<typeof requireKey>[0] & ConstructorParameters<typeof JournaledWrite>[2]): WriteFlow & { recover(): Promise<void> } {
  const writer = new JournaledWrite(ctx, out, target, undefined, cliWriteWords({ create: true }));
  const ledger = new Ledger(join(stateDir(ctx.env), 'contract-writes.json'));
  const api = journalBaseUrl(target);
  const credential = credentialFingerprint(target.apiKey ?? '');
  const ours = (e: LedgerEntry) => e.api === api && e.credential === credential;
  let current: string | undefined;

  const create = async (body: ReservationCreateRequest, met: Met | undefined, key?: string) => {
    const { client } = await services(ctx);
    // Not --new: a run interrupted between the create and the cancel is finished by the
    // next one, which resumes (pending) or replays (done) the same create, with its key.
    const res = await writer.run({ operation: 'createReservation', target: body.car_alias, request: body, key }, (sent, retry, onRetry) => {
      if (current !== sent) {
        current = sent;
        ledger.change((all) => [...all.filter((e) => e.key !== sent), { api, credential, key: sent, request: body, startedAt: ctx.now().toISOString() }]);
      }
      return client.request<unknown>({ method: 'POST', path: '/my/reservation', body, headers: { 'idempotency-key': sent }, auth: 'key', envelope: false, retry, onRetry: met ? seeing(met, onRetry) : onRetry });
    });
    const uuid = typeof (res.body as { data?: unknown } | undefined)?.data === 'string' ? ((res.body as { data: string }).data) : undefined;
    if (uuid && current) {
      const key = current;
      ledger.change((all) => all.map((e) => (e.key === key ? { ...e, uuid } : e)));
    }
    return res;
  };
  const cancel = async (uuid: string, met: Met | undefined) => {
    const { client } = await services(ctx);
    const res = await writer.run({ operation: 'cancelReservation', target: uuid, request: { uuid } }, (key, retry, onRetry) =>
      client.request<unknown>({ method: 'DELETE', path: `/my/reservation/${encodeURIComponent(uuid)}`, headers: { 'idempotency-key': key }, auth: 'key', envelope: false, retry, onRetry: met ? seeing(met, onRetry) : onRetry }),
    );
    ledger.change((all) => all.filter((e) => !(ours(e) && e.uuid === uuid)));
    return res;
  };
  return {
    create: async (body, met) => answerOf(await create(body, met)),
    cancel: async (uuid, met) => answerOf(await cancel(uuid, met)),
    async recover() {
      for (const left of ledger.read().filter(ours)) {
        const age = formatAge(ctx.now().getTime() - Date.parse(left.startedAt));
        // the same key: the server answers the original reservation (it keeps keys forever)
        const res = await create(left.request, undefined, left.key);
        current = undefined;
        const uuid = typeof (res.body as { data?: unknown } | undefined)?.data === 'string' ? (res.body as { data: string }).data : undefined;
        if (!uuid) {
          out.warn(`an interrupted contract check (${age} ago) left a create whose answer names no reservation; check \`carrental trips\``);
          ledger.change((all) => all.filter((e) => e.key !== left.key));
          continue;
        }
        const { api: reads } = await services(ctx);
        const status = (await reads.reservation(uuid)).data.status;
        if (status === 'cancelled') {
          ledger.change((all) => all.filter((e) => e.key !== left.key));
          out.info(`an interrupted contract check (${age} ago) made reservation ${uuid}; it is cancelled already`);
          continue;
        }
        await cancel(uuid, undefined);
        ledger.change((all) => all.filter((e) => e.key !== left.key));
        out.warn(`an interrupted contract check (${age} ago) left reservation ${uuid} active: cancelled it`);
      }
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
