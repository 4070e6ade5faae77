// The secret of this installation: 32 random bytes, hex, in a 0600 file of the config
// directory, made once. The MCP server keys its confirmations with it, so that an agent
// cannot forge one; it is never the API key and never leaves this machine.
//
// Two servers starting at once must agree on one secret: the file is written whole under a
// temporary name and then hard-linked into place, which fails for the second one (EEXIST),
// which then reads the winner's. A crash leaves at most a temporary file, never half a secret.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { usageError } from '../errors.js';
import { tempPathFor, writeFileAtomicSync } from './atomic-file.js';
import { readRegularFileSync } from './regular-file.js';

export const SECRET_FILE = 'confirmation-secret';

function read(file: string): Buffer | undefined {
  // a FIFO or device there is a clear error, not a server that hangs at its start
  const text = readRegularFileSync(file, 'the confirmation secret');
  if (text === undefined) return undefined;
  if (!/^[0-9a-f]{64}\n?$/.test(text)) {
    throw usageError(`the confirmation secret ${file} is not 64 hex digits`, `remove it; a new one is made at the next start (confirmations issued before stop working)`);
  }
  return Buffer.from(text.trim(), 'hex');
}

/** This install's secret, made on first use. */
export function installSecret(dir: string): Buffer {
  const file = join(dir, SECRET_FILE);
  const found = read(file);
  if (found) return found;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = tempPathFor(file);
  try {
    // a temporary name the atomic writer renames into: whole and 0600 before it is linked
    writeFileAtomicSync(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
  }
  return read(file)!;
}
