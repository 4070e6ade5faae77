// `--jq EXPR`: jq itself (1.8, compiled to WebAssembly by jq-wasm), so a CI image without
// `jq` can still pick a field. Loaded only when --jq is given (1.3 MB of JavaScript and
// WebAssembly), and prepared before the command sends anything, so a typo in the
// expression is a usage error, not a failure after the request.
import { CliError, usageError } from '../errors.js';
import { MIN_SECRET_LENGTH, scrubSecrets } from '../text/redact.js';

interface JqHandle {
  raw(input: string | object | null, query: string, flags?: string[]): { stdout: string; stderr: string; exitCode: number };
}

let handle: JqHandle | undefined;

/** jq's first error line, without its "jq: error ...:" prefix noise. */
function jqMessage(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.trim()) ?? 'jq failed';
  return line.replace(/^jq: error( \(at [^)]*\))?:\s*/, '').trim();
}

/** Loads jq and compiles `expr` once (jq exits 3 on a compile error). */
export async function prepareJq(expr: string): Promise<void> {
  if (!handle) {
    const { loadJq } = await import('jq-wasm/inline');
    handle = (await loadJq()) as JqHandle;
  }
  const { stderr, exitCode } = handle.raw('null', expr, ['-c']);
  if (exitCode === 3 || exitCode === 2) throw usageError(`--jq: ${jqMessage(stderr)}`, 'the jq manual: https://jqlang.org/manual/');
}

// C0 controls other than tab and newline, DEL, C1, the bidi controls and the separators:
// jq -r prints strings raw, and a server string must not drive the terminal.
// eslint-disable-next-line no-control-regex
const UNSAFE_RAW_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Runs the prepared expression on `input` (JSON text) and returns what jq printed: strings
 * raw (as `gh --jq` and `jq -r` print them), anything else as JSON, indented on a
 * terminal and one line per result in a pipe. Secrets are masked and control characters
 * shown as \uXXXX.
 */
export function runJq(expr: string, input: string, opts: { tty: boolean; secrets?: Array<string | undefined> }): string {
  if (!handle) throw new Error('--jq was not prepared');
  const { stdout, stderr, exitCode } = handle.raw(input, expr, opts.tty ? ['-r'] : ['-r', '-c']);
  if (exitCode !== 0 && stderr.trim()) throw new CliError('api', `--jq: ${jqMessage(stderr)}`, { hint: 'the expression does not fit this output; try --json alone to see it' });
  const safe = stdout.replace(UNSAFE_RAW_RE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // as --json: with no key to look for (`sandbox keys`, whose demo keys are shown whole),
  // nothing key-shaped is masked either
  const secrets = (opts.secrets ?? []).filter((s): s is string => !!s && s.length >= MIN_SECRET_LENGTH);
  return secrets.length ? scrubSecrets(safe, secrets) : safe;
}
