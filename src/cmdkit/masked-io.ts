// The one place on the way out where the active key is masked. Every byte a command prints
// (tables, pipes, --json, --jq, --debug, previews, progress, prompts, the MCP protocol)
// goes through ctx.io.stdout or ctx.io.stderr, so wrapping those two streams covers any
// server string a renderer forgot, instead of trusting each command to remember.
import { maskSecretBytes, maskSecrets, MIN_SECRET_LENGTH } from '../text/redact.js';
import { WRAPPED_STREAM, type IO, type OutStream } from '../session/context.js';

/**
 * `text` with every secret masked. A Buffer is masked byte for byte (read as latin1, so a
 * binary body keeps every other byte; an invisible character inside the key is then its
 * UTF-8 bytes) and stays a Buffer.
 */
export function maskChunk(chunk: string | Uint8Array, secrets: readonly string[]): string | Uint8Array {
  const active = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  if (active.length === 0) return chunk;
  if (typeof chunk === 'string') return maskSecrets(chunk, active);
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
  const masked = maskSecretBytes(text, active);
  if (masked === text) return chunk;
  // a mask's `…` is the one character above latin-1: its UTF-8 bytes, one character per byte
  return Buffer.from(masked.replaceAll('…', '\xe2\x80\xa6'), 'latin1');
}

/**
 * The stream with `write` masking `secrets` (read at each write, so a key declared later
 * is masked from then on); everything else (isTTY, columns, events, drain) is the stream's own.
 */
export function maskedStream<T extends OutStream>(stream: T, secrets: readonly string[], shown: ReadonlySet<string> = new Set()): T {
  const mask = (chunk: unknown) =>
    typeof chunk === 'string' || chunk instanceof Uint8Array ? maskChunk(chunk, shown.size ? secrets.filter((s) => !shown.has(s)) : secrets) : chunk;
  const write = (chunk: unknown, ...rest: unknown[]) => (stream.write as (...args: unknown[]) => boolean)(mask(chunk), ...rest);
  const end = (chunk?: unknown, ...rest: unknown[]) => (stream.end as (...args: unknown[]) => T)(mask(chunk), ...rest);
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return write;
      if (prop === 'end') return end;
      if (prop === WRAPPED_STREAM) return target;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The IO a command gets: stdout and stderr masked (created lazily, like the process's own).
 * `shown`: values a command prints whole on purpose (`sandbox keys`: the sandbox's
 * published demo keys), left unmasked even when one of them is the active key.
 */
export function maskedIO(io: IO, secrets: readonly string[], shown: ReadonlySet<string> = new Set()): IO {
  let stdout: OutStream | undefined;
  let stderr: OutStream | undefined;
  return {
    get stdin() {
      return io.stdin;
    },
    get stdout() {
      return (stdout ??= maskedStream(io.stdout, secrets, shown));
    },
    get stderr() {
      return (stderr ??= maskedStream(io.stderr, secrets, shown));
    },
  };
}
