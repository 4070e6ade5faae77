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

/** Read on a wrapping Proxy (the key's mask, agent mode) to reach the stream it wraps. */
export const WRAPPED_STREAM = Symbol('the wrapped stream');

/** The process stream under any wrappers: what the launcher's error handler is attached to. */
export function underlyingStream(stream: object): object {
  let s = stream as { [WRAPPED_STREAM]?: object };
  while (s[WRAPPED_STREAM]) s = s[WRAPPED_STREAM] as typeof s;
  return s;
}

export interface IO {
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
}
