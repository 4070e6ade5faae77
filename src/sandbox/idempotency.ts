// Idempotency of create and cancel (Authentication rule 10). Completed results live in the
// state file (permanently); commands in flight live in this process, so a retry during a
// slow first attempt gets 409 operation_in_progress instead of a second execution.
import { createHash } from 'node:crypto';
import { apiError } from './errors.js';

const PRINTABLE_ASCII = /^[\x20-\x7e]{16,128}$/;

/** The header value, validated; undefined when the header is absent. */
export function readIdempotencyKey(values: string[] | undefined): string | undefined {
  if (!values || values.length === 0) return undefined;
  if (values.length > 1) throw apiError('idempotency_key_invalid', 'Send exactly one Idempotency-Key header');
  if (!PRINTABLE_ASCII.test(values[0])) {
    throw apiError('idempotency_key_invalid', 'Idempotency-Key must be 16 to 128 printable ASCII characters');
  }
  return values[0];
}

/** JSON with object keys sorted, so key order does not make two bodies different commands. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests the same command: the operation, its path target and its body. */
export function commandFingerprint(operation: string, target: string, bodyText: string): string {
  let body: string;
  try {
    body = bodyText.trim() === '' ? '' : canonicalJson(JSON.parse(bodyText));
  } catch {
    body = `raw:${bodyText}`;
  }
  return createHash('sha256').update(`${operation}\n${target}\n${body}`).digest('hex');
}

export interface InflightRegistry {
  /** Registers the command, or throws 409 when the same scope is already running. */
  enter(scope: string, fingerprint: string): void;
  leave(scope: string): void;
  size(): number;
}

export function createInflightRegistry(): InflightRegistry {
  const running = new Map<string, string>();
  return {
    enter(scope, fingerprint) {
      const other = running.get(scope);
      if (other !== undefined) {
        throw other === fingerprint
          ? apiError('operation_in_progress', 'The same command is still being processed; retry with the same key after Retry-After')
          : apiError('idempotency_mismatch', 'This Idempotency-Key is in use by a different command');
      }
      running.set(scope, fingerprint);
    },
    leave(scope) {
      running.delete(scope);
    },
    size: () => running.size,
  };
}
