// The streams a command writes to, typed with what the renderers use of them (a TTY flag,
// the width); tests pass fakes.
import type { Readable, Writable } from 'node:stream';

export interface InStream extends Readable {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
}
export interface OutStream extends Writable {
  isTTY?: boolean;
  columns?: number;
}

/**
 * Streams whose write errors a command reports itself (the result of a booking, see
 * Output.committed): the launcher's quiet exit on a closed pipe leaves them alone.
 */
export const selfReportedStreams = new WeakSet<object>();

export interface IO {
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
}
