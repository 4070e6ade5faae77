// Fault injection for reliability tests, per operation id of src/api/operations.ts (or
// `*` for all), each for the next `times` matching requests or, without `times`, always.
// Set through startSandbox({faults}), CARRENTAL_SANDBOX_FAULTS (JSON array) or
// POST /__sandbox/faults.
// zod/mini, the flavour the CLI already loads: the full one would cost every embedded command.
import type * as Zod from 'zod/mini';
import { z } from '../api/zod.js';
import { OPERATIONS } from '../api/operations.js';

const operationIds = OPERATIONS.map((o) => o.id);
const Operation = z.string().check(
  z.refine((v) => v === '*' || operationIds.includes(v), {
    message: `operation must be * or one of ${operationIds.join(', ')}`,
  }),
);
const Times = z.optional(z.int().check(z.minimum(1)));
const When = z.enum(['before_commit', 'after_commit']);

const FAULT_ERROR_CODES = [
  'payment_in_progress',
  'internal_error',
  'authentication_unavailable',
  'rate_limit_unavailable',
  'manual_action_unavailable',
  'operation_outcome_unknown',
] as const;

const FaultSpecSchema = z.discriminatedUnion('kind', [
  /** Sleeps before the command commits (or before a read is served), or after. */
  z.strictObject({ kind: z.literal('latency'), operation: Operation, ms: z.int().check(z.minimum(0), z.maximum(120_000)), when: z._default(When, 'before_commit'), times: Times }),
  /** Destroys the socket without a response; by default after the command committed. */
  z.strictObject({ kind: z.literal('drop'), operation: Operation, when: z._default(When, 'after_commit'), times: Times }),
  /**
   * Answers with the error code (503s carry Retry-After: 1). With `commit: false` (default)
   * nothing runs, not even authentication; with `commit: true` the command runs and commits
   * and the error replaces its answer (e.g. operation_outcome_unknown after a real commit).
   */
  z.strictObject({ kind: z.literal('error'), operation: Operation, code: z.enum(FAULT_ERROR_CODES), commit: z._default(z.boolean(), false), times: Times }),
  /** Replaces the response body: invalid JSON, or valid JSON that breaks the schema. */
  z.strictObject({ kind: z.literal('malformed'), operation: Operation, body: z._default(z.enum(['invalid_json', 'schema']), 'invalid_json'), times: Times }),
  /** 403 api_key_operation_not_enabled after authentication. */
  z.strictObject({ kind: z.literal('operation_not_enabled'), operation: Operation, times: Times }),
]);

export type FaultSpec = Zod.input<typeof FaultSpecSchema>;
export type Fault = Zod.output<typeof FaultSpecSchema>;
export type ActiveFault = Fault & { id: string; remaining: number | null };

export interface FaultRegistry {
  add(spec: unknown): ActiveFault;
  list(): ActiveFault[];
  remove(id: string): boolean;
  clear(): void;
  /** Consumes and returns the first active fault for the operation that satisfies `match`. */
  take<K extends Fault['kind']>(operation: string, kind: K, match?: (f: Extract<ActiveFault, { kind: K }>) => boolean): Extract<ActiveFault, { kind: K }> | undefined;
}

function parseFaults(raw: unknown, source: string): Fault[] {
  const parsed = z.array(FaultSpecSchema).safeParse(raw);
  if (!parsed.success) throw new Error(`${source}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function faultsFromEnv(env: NodeJS.ProcessEnv = process.env): Fault[] {
  const text = env.CARRENTAL_SANDBOX_FAULTS;
  if (!text) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('CARRENTAL_SANDBOX_FAULTS is not valid JSON');
  }
  return parseFaults(raw, 'CARRENTAL_SANDBOX_FAULTS');
}

export function createFaultRegistry(initial: readonly unknown[] = []): FaultRegistry {
  let faults: ActiveFault[] = [];
  let counter = 0;
  const registry: FaultRegistry = {
    add(spec) {
      const parsed = FaultSpecSchema.safeParse(spec);
      if (!parsed.success) throw new Error(z.prettifyError(parsed.error));
      const fault = { ...parsed.data, id: `fault_${++counter}`, remaining: parsed.data.times ?? null } as ActiveFault;
      faults.push(fault);
      return fault;
    },
    list: () => faults.map((f) => ({ ...f })),
    remove(id) {
      const before = faults.length;
      faults = faults.filter((f) => f.id !== id);
      return faults.length !== before;
    },
    clear() {
      faults = [];
    },
    take(operation, kind, match) {
      const found = faults.find(
        (f) => f.kind === kind && (f.operation === '*' || f.operation === operation) && (!match || match(f as never)),
      );
      if (!found) return undefined;
      if (found.remaining !== null && --found.remaining <= 0) faults = faults.filter((f) => f !== found);
      return found as never;
    },
  };
  for (const spec of initial) registry.add(spec);
  return registry;
}
