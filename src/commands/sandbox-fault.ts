// `carrental sandbox fault add <kind> --operation <op> ... | list | clear [id]`: faults a
// running sandbox injects into its next answers (latency, dropped connections, error codes,
// malformed bodies), for reliability tests of a client. They live in the server process.
import { OPERATIONS } from '../api/operations.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';
import { usageError } from '../errors.js';
import { renderTable } from '../render/table.js';
import { adminTarget } from '../cmdkit/sandbox-admin.js';
import { parseIntOption } from '../input/parse.js';

export const FAULT_KINDS = ['latency', 'drop', 'error', 'malformed', 'operation_not_enabled'] as const;

export type FaultInput = InputOf<'sandbox fault'>;

interface Fault {
  id: string;
  kind: string;
  operation: string;
  remaining: number | null;
  [k: string]: unknown;
}

function faultSpec(input: FaultInput): Record<string, unknown> {
  const kind = input.kind;
  if (!kind || !(FAULT_KINDS as readonly string[]).includes(kind)) throw usageError(`fault add needs a kind: ${FAULT_KINDS.join(', ')}${kind ? `; got "${kind}"` : ''}`);
  const operation = input.operation ?? '*';
  if (operation !== '*' && !OPERATIONS.some((o) => o.id === operation)) {
    throw usageError(`--operation must be * or an operation id, got "${operation}"`, `operations: ${OPERATIONS.map((o) => o.id).join(', ')}`);
  }
  const spec: Record<string, unknown> = { kind, operation };
  const only = (flag: string, kinds: string[], value: unknown) => {
    if (value !== undefined && !kinds.includes(kind)) throw usageError(`${flag} does not apply to a ${kind} fault`);
    return value !== undefined;
  };
  if (only('--ms', ['latency'], input.ms)) spec.ms = parseIntOption(input.ms, '--ms', { min: 0, max: 120_000 });
  else if (kind === 'latency') throw usageError('a latency fault needs --ms');
  if (only('--when', ['latency', 'drop'], input.when)) {
    if (input.when !== 'before_commit' && input.when !== 'after_commit') throw usageError('--when must be before_commit or after_commit');
    spec.when = input.when;
  }
  if (only('--code', ['error'], input.code)) spec.code = input.code;
  else if (kind === 'error') throw usageError('an error fault needs --code (e.g. internal_error, operation_outcome_unknown)');
  if (only('--commit', ['error'], input.commit)) spec.commit = true;
  if (only('--body', ['malformed'], input.body)) {
    if (input.body !== 'invalid_json' && input.body !== 'schema') throw usageError('--body must be invalid_json or schema');
    spec.body = input.body;
  }
  if (input.times !== undefined) spec.times = parseIntOption(input.times, '--times', { min: 1, max: 1_000_000 });
  return spec;
}

export async function run(input: FaultInput, ctx: Context): Promise<number> {
  const action = input.action;
  const out = output(ctx);
  if (action === 'add') {
    const spec = faultSpec(input);
    const target = await adminTarget(ctx, input, 'faults');
    const { faults } = await target.call<{ faults: Fault[] }>('POST', '/faults', spec);
    if (ctx.globals.json) out.printJson(faults[0]);
    else out.info(`fault ${faults[0].id} added: ${describe(faults[0])}`);
    return 0;
  }
  if (action === 'list') {
    if (input.kind !== undefined) throw usageError('fault list takes no argument');
    const target = await adminTarget(ctx, input, 'faults');
    const { faults } = await target.call<{ faults: Fault[] }>('GET', '/faults');
    if (ctx.globals.json) out.printJson(faults);
    else if (faults.length === 0) out.info('no faults');
    else out.line(renderTable(['ID', 'OPERATION', 'FAULT', 'REMAINING'], faults.map((f) => [f.id, f.operation, describe(f), f.remaining === null ? 'always' : String(f.remaining)]), { tty: out.tty }).trimEnd());
    return 0;
  }
  if (action === 'clear') {
    const id = input.kind;
    if (id !== undefined && !/^fault_\d+$/.test(id)) throw usageError(`"${id}" is not a fault id (fault_N, see \`sandbox fault list\`)`);
    const target = await adminTarget(ctx, input, 'faults');
    const { faults } = await target.call<{ faults: Fault[] }>('DELETE', id ? `/faults/${id}` : '/faults');
    if (ctx.globals.json) out.printJson(faults);
    else out.info(id ? `fault ${id} removed; ${faults.length} left` : 'all faults cleared');
    return 0;
  }
  throw usageError(`sandbox fault needs add, list or clear, got "${action ?? ''}"`);
}

function describe(f: Fault): string {
  const extra = ['code', 'ms', 'when', 'body', 'commit'].filter((k) => f[k] !== undefined && f[k] !== false).map((k) => `${k}=${String(f[k])}`);
  return [f.kind, ...extra].join(' ');
}
