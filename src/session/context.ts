// What every command receives: streams, environment, global options, clock, and lazy
// factories for the config store and the API client. Tests build one with fake streams;
// nothing here imports a heavy dependency at load time.
import { CliError } from '../errors.js';

// The streams live with the renderers that write to them; re-exported for the front end.
export { selfReportedStreams, underlyingStream, WRAPPED_STREAM, type InStream, type IO, type OutStream } from '../render/streams.js';
import type { IO } from '../render/streams.js';

export interface Globals {
  profile: string;
  baseUrl?: string;
  sandbox: boolean;
  /** --json (with or without fields) or --jq: JSON on stdout. */
  json: boolean;
  /** --json a,b,c: only these fields (of each item of a list). */
  jsonFields?: string[];
  /** --jq EXPR: filter the JSON output (prepared before the command runs). */
  jq?: string;
  color: boolean;
  input: boolean;
  yes: boolean;
  debug: boolean;
  timeoutMs: number;
  /** --wide: tables show ids whole and every column. */
  wide: boolean;
  /** Long output on a terminal may go through a pager (--no-pager turns it off). */
  pager: boolean;
  /**
   * Run by an AI agent (agent.ts): the terminal is treated as a pipe (no prompt, colour,
   * progress, pager; tab-separated tables), whatever stdout is.
   */
  agent: boolean;
  /** Accessible mode: numbered prompts, no spinner, progress as plain lines (accessible.ts). */
  accessible: boolean;
}

export interface Context {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: Globals;
  version: string;
  now(): Date;
  /** Resolves after ms, or rejects with an interrupted error when the command is cancelled. */
  sleep(ms: number): Promise<void>;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** stdin and stdout are terminals and prompting is allowed. */
  canPrompt(): boolean;
  /** Runs when the command ends, success or not (e.g. stopping the embedded sandbox). */
  onCleanup(fn: () => Promise<void> | void): void;
  /**
   * Declares the key this command will send: every error printed from then on masks it,
   * and a usage error is thrown if any command-line argument holds it. Called by
   * services.ts before a client gets the key (absent in hand-made test contexts).
   */
  activeKey?(key: string | undefined): void;
  /**
   * Values this command prints whole on purpose, unmasked even if one is the active key:
   * only `sandbox keys`, whose output is the sandbox's published demo keys.
   */
  showWhole?(values: string[]): void;
}

export function makeSleep(signal: AbortSignal) {
  return (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new CliError('interrupted', 'interrupted'));
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new CliError('interrupted', 'interrupted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
}
