// Reading the sandbox's state log and its index in place: a few bytes at an offset, or a
// range as whole lines a chunk at a time. One buffer is reused for a whole range: a 4 MB
// buffer allocated per chunk was left to the allocator, whose high-water mark stayed in the
// resident memory of a server that had opened a 144 MB log (measured on Node 20.20.2).
import * as fs from 'node:fs';

/** Reads `length` bytes of the file at `at`; fewer when it ends first. */
export function readAt(fd: number, at: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, length));
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/**
 * The bytes [from, to) of a file as runs of whole lines, in order: each run ends with a
 * newline and is valid only until the next is asked for. Returns how many bytes were left
 * after the last newline (an unfinished line).
 */
export function* lineChunks(fd: number, from: number, to: number, chunkBytes: number): Generator<Buffer, number> {
  // no more than the range: a short tail costs a short buffer
  let buf = Buffer.allocUnsafe(Math.max(1, Math.min(chunkBytes, to - from)));
  let kept = 0;
  for (let at = from; at < to; ) {
    if (kept === buf.length) {
      // one line longer than the buffer
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, kept);
      buf = bigger;
    }
    const n = fs.readSync(fd, buf, kept, Math.min(buf.length - kept, to - at), at);
    if (n === 0) break;
    at += n;
    const filled = kept + n;
    const last = buf.lastIndexOf(10, filled - 1);
    if (last < 0) {
      kept = filled;
      continue;
    }
    yield buf.subarray(0, last + 1);
    buf.copy(buf, 0, last + 1, filled);
    kept = filled - last - 1;
  }
  return kept;
}
