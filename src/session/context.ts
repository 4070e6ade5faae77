// What every command receives: streams, environment, global options, clock, and lazy
// factories for the config store and the API client. Tests build one with fake streams;
// nothing here imports a heavy dependency at load time.
import { CliError, usageError } from '../errors.js';
import { parseJsonFields } from '../render/json-select.js';
import { agentName, isAccessible } from '../cmdkit/agent.js';
import type { OptionsInput } from '../cmdkit/command-types.js';
import type { DeclaredGlobalOptions } from '../cmdkit/global-options.js';

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

/**
 * The global flags as commander parses them, typed from their declarations (global-options.ts).
 * json: true for a bare --json, the field list for --json a,b ('' when it stood before the command).
 */
export type RawGlobals = OptionsInput<DeclaredGlobalOptions>;

const truthy = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/** Flags win over environment variables; both are validated before anything runs. */
export function resolveGlobals(raw: RawGlobals, env: NodeJS.ProcessEnv, io: IO): Globals {
  const timeoutText = raw.timeout ?? env.CARRENTAL_TIMEOUT;
  let timeoutMs = 30_000;
  if (timeoutText !== undefined && timeoutText !== '') {
    const seconds = Number(timeoutText);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
      throw usageError(`--timeout must be a number of seconds between 0 and 3600, got "${timeoutText}"`);
    }
    timeoutMs = Math.round(seconds * 1000);
  }
  const profile = raw.profile ?? env.CARRENTAL_PROFILE ?? 'default';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(profile)) {
    throw usageError(`invalid profile name "${profile}" (letters, digits, ".", "_" and "-" only)`);
  }
  const agent = agentName(env) !== undefined;
  let color = raw.color !== false && !!io.stdout.isTTY && !agent;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') color = false;
  if (raw.color !== false && env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') {
    color = true;
  }
  return {
    profile,
    baseUrl: raw.baseUrl ?? (env.CARRENTAL_BASE_URL || undefined),
    sandbox: raw.sandbox === true || truthy(env.CARRENTAL_SANDBOX),
    json: raw.json !== undefined || raw.jq !== undefined,
    jsonFields: typeof raw.json === 'string' && raw.json !== '' ? parseJsonFields(raw.json) : undefined,
    jq: raw.jq,
    color,
    input: raw.input !== false && !truthy(env.CI) && !agent,
    yes: raw.yes === true,
    debug: raw.debug === true || truthy(env.CARRENTAL_DEBUG),
    timeoutMs,
    wide: raw.wide === true,
    // a screen reader reads the terminal's lines as they come: no pager in the accessible mode
    pager: raw.pager !== false && !truthy(env.CI) && !agent && !isAccessible(env),
    agent,
    accessible: isAccessible(env),
  };
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
