// Whole-or-nothing file replacement for every file carrental or its sandbox writes
// (journal, config, sandbox state, completion cache).
//
// Why not write-file-atomic 7 or atomically (under conf): both ignore the byte count that
// write(2) returns. On a nearly full disk write() writes part of the buffer and returns a
// short count; those helpers then fsync and rename the truncated temp file over the good
// one. Here every write loops until the whole buffer is down, a write that makes no
// progress is ENOSPC, the temp file's size is checked against what was meant before the
// rename, and any failure removes the temp file and leaves the old file untouched.
//
// The `fs` parameter exists for tests: they inject a short write to prove the check runs.
import * as nodeFs from 'node:fs';
import path from 'node:path';

/** The few synchronous fs calls the writer makes; tests replace `writeSync`. */
export interface AtomicFs {
  openSync: typeof nodeFs.openSync;
  writeSync: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => number;
  fsyncSync: typeof nodeFs.fsyncSync;
  fstatSync: typeof nodeFs.fstatSync;
  closeSync: typeof nodeFs.closeSync;
  fchmodSync: typeof nodeFs.fchmodSync;
  renameSync: typeof nodeFs.renameSync;
  unlinkSync: typeof nodeFs.unlinkSync;
}

export interface AtomicWriteOptions {
  /** File mode, applied with fchmod so that the umask cannot widen it. Default 0o600. */
  mode?: number;
  /** fsync the file and its directory (default true). */
  fsync?: boolean;
  fs?: AtomicFs;
  /**
   * Runs once the temp file is whole and synced, just before the rename; if it throws, the
   * temp file is removed and the file is left as it was. A writer under a lock checks here
   * that the lock is still its own (locked-file.ts), as late as it can.
   */
  beforeRename?: () => void;
}

let counter = 0;

/** `<file>.<pid>.<n>.tmp`: unique per process and call, recognisable for clean-up. */
export function tempPathFor(file: string): string {
  counter = (counter + 1) % 1_000_000;
  return `${file}.${process.pid}.${counter}.tmp`;
}

/** Matches the temp files `tempPathFor(file)` makes (for sweeping those a killed writer left). */
export function isTempFileOf(file: string, candidate: string): boolean {
  const base = path.basename(file);
  const name = path.basename(candidate);
  return name.startsWith(`${base}.`) && /^\d+\.\d+\.tmp$/.test(name.slice(base.length + 1));
}

function noSpace(file: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, write '${file}'`);
  err.code = 'ENOSPC';
  err.errno = -28;
  err.syscall = 'write';
  err.path = file;
  return err;
}

/** fsync a directory so that a rename inside it is durable. */
export function fsyncDirSync(dir: string): void {
  // Windows cannot open a directory for fsync; NTFS journals the rename itself.
  if (process.platform === 'win32') return;
  const fd = nodeFs.openSync(dir, 'r');
  try {
    nodeFs.fsyncSync(fd);
  } catch (err) {
    // Some filesystems (certain network/FUSE mounts) do not support fsync on directories.
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
  } finally {
    nodeFs.closeSync(fd);
  }
}

/** Writes all of `bytes` at `position`: a write that makes no progress is a full disk. */
function writeAll(fs: AtomicFs, fd: number, bytes: Uint8Array, position: number, file: string): void {
  let offset = 0;
  while (offset < bytes.length) {
    const n = fs.writeSync(fd, bytes, offset, bytes.length - offset, position + offset);
    // A write that makes no progress would loop forever; the disk is full.
    if (!(n > 0)) throw noSpace(file);
    offset += n;
  }
}

/**
 * Where a write to `file` must land: `file` itself, or, when it is a symlink (a config kept
 * in a dotfiles repository), the file it points to, through any chain of links. Renaming
 * over the link would replace it with a regular file and leave its target stale, so the
 * temp file goes beside the target and is renamed over it. A dangling link's target is
 * created.
 */
export function writeTarget(file: string): string {
  let current = file;
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      link = nodeFs.readlinkSync(current);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // EINVAL: not a link; ENOENT: nothing there yet
      if (code === 'EINVAL' || code === 'ENOENT') return current;
      throw err;
    }
    current = path.resolve(path.dirname(current), link);
  }
  const err: NodeJS.ErrnoException = new Error(`ELOOP: too many symbolic links, '${file}'`);
  err.code = 'ELOOP';
  err.path = file;
  throw err;
}

/**
 * Replaces `file` with `data`, whole or not at all (through a symlink: its target). Throws
 * the underlying error (ENOSPC, EIO, EROFS, ENOENT for a missing directory, EACCES) after
 * removing its temp file; the old file, if any, is then exactly as it was. `data` may be a
 * list of byte chunks, written one after the other: the Node 20 sandbox store keeps its
 * document encoded in chunks and would otherwise copy megabytes into one buffer per write.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array | readonly Uint8Array[], options: AtomicWriteOptions = {}): void {
  const fs = options.fs ?? nodeFs;
  const mode = options.mode ?? 0o600;
  const sync = options.fsync ?? true;
  const chunks = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : data instanceof Uint8Array ? [data] : data;
  const length = chunks.reduce((n, c) => n + c.length, 0);
  file = writeTarget(file);
  const tmp = tempPathFor(file);
  const fd = fs.openSync(tmp, 'wx', mode);
  let renamed = false;
  try {
    try {
      fs.fchmodSync(fd, mode);
      let position = 0;
      for (const bytes of chunks) {
        writeAll(fs, fd, bytes, position, tmp);
        position += bytes.length;
      }
      if (sync) fs.fsyncSync(fd);
      const size = fs.fstatSync(fd).size;
      if (size !== length) throw new Error(`short write: ${tmp} has ${size} of ${length} bytes`);
    } finally {
      fs.closeSync(fd);
    }
    options.beforeRename?.();
    fs.renameSync(tmp, file);
    renamed = true;
    if (sync) fsyncDirSync(path.dirname(file));
  } finally {
    if (!renamed) {
      try {
        fs.unlinkSync(tmp);
      } catch {
        // The temp file is litter at worst; the error that matters is already on its way.
      }
    }
  }
}

/**
 * The same, for async callers. The work is synchronous on purpose: these files are
 * small, and a synchronous write cannot interleave with anything else in the process.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array | readonly Uint8Array[], options: AtomicWriteOptions = {}): Promise<void> {
  writeFileAtomicSync(file, data, options);
}
