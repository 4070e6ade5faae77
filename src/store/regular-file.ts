// carrental's own files (config, journal, their locks, the completion cache) are regular
// files, or a directory for a lock. Anything else at one of those paths is refused at once
// with a clear error: reading a FIFO blocks until a writer comes (forever), a character
// device such as /dev/zero never ends, and a socket cannot be opened at all. Reads open
// without blocking and check what they opened, so a FIFO swapped in after a check still
// cannot hang the command.
import * as fs from 'node:fs';
import { CliError } from '../errors.js';

const { O_RDONLY, O_NONBLOCK } = fs.constants;

/** What a non-regular file is, in words: "a FIFO (named pipe)", "a socket", ... */
export function kindOf(stats: fs.Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/** The error for `what` (e.g. "the config file") at `file` being something else. */
export function notARegularFile(what: string, file: string, kind: string): CliError {
  return new CliError('api', `${what} ${file} is ${kind}, not a regular file`, {
    hint: `move it aside (carrental only reads and writes a regular file there, and creates one when none exists)`,
  });
}

/**
 * The text of a regular file; undefined when there is none (ENOENT). A FIFO, socket or
 * device at the path (or where a symlink there points) is a CliError, never a hang.
 */
export function readRegularFileSync(file: string, what: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // opening a socket fails with ENXIO: say what is there rather than the errno
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw notARegularFile(what, file, kindOf(fs.statSync(file)));
    throw err;
  }
  try {
    const stats = fs.fstatSync(fd);
    if (stats.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${file}'`), { code: 'EISDIR', path: file });
    if (!stats.isFile()) throw notARegularFile(what, file, kindOf(stats));
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** The same for async callers (the journal); the work is small and synchronous on purpose. */
export async function readRegularFile(file: string, what: string): Promise<string | undefined> {
  return readRegularFileSync(file, what);
}

/**
 * A lock directory's path must hold a directory or nothing: a lock library that finds a
 * FIFO or a file there takes it for a lock held by another process and waits for it.
 */
export function checkLockPath(lockPath: string, what: string): void {
  let stats: fs.Stats;
  try {
    stats = fs.statSync(lockPath);
  } catch {
    return; // nothing there (or nothing we can see): the lock library reports the rest
  }
  if (stats.isDirectory()) return;
  throw new CliError('api', `${what} ${lockPath} is ${stats.isFile() ? 'a file' : kindOf(stats)}, not a lock directory`, {
    hint: 'move it aside: carrental creates its lock directory there while it writes',
  });
}
