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
