// The global flags and the variables that stand for them, resolved into the Globals every
// command gets (src/session/context.ts): what the command line says, so the CLI's kit, not
// the session both front ends share.
import { usageError } from '../errors.js';
import { parseJsonFields } from '../input/json-fields.js';
import type { Globals, IO } from '../session/context.js';
import { agentName, isAccessible } from './agent.js';
import type { OptionsInput } from './command-types.js';
import type { DeclaredGlobalOptions } from './global-options.js';

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
