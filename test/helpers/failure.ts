import { expect } from 'vitest';
import { CliError } from '../../src/errors.js';

/** The CliError a call fails with; the test fails if it succeeds or throws anything else. */
export async function failure(p: Promise<unknown>): Promise<CliError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    return err as CliError;
  }
  throw new Error('expected the call to fail');
}

/** The usage error (exit 2) a synchronous call throws; the test fails if it returns or throws anything else. */
export function usageError(fn: () => unknown): CliError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).kind).toBe('usage');
    expect((err as CliError).exitCode).toBe(2);
    return err as CliError;
  }
  throw new Error('expected a usage error');
}
