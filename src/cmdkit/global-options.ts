// The options every command accepts. Shared by the parser (main.ts) and the completion
// generator, so a new global flag shows up in help, parsing and every shell at once.
// Import-free on purpose: it loads for `--help` and for completion scripts.
import type { OptionSpec } from './command-specs.js';

const DECLARED = [
  { flags: '--profile <name>', description: 'configuration profile (env CARRENTAL_PROFILE; default "default")', complete: 'profile' },
  { flags: '--base-url <url>', description: 'API base address ending in /v1 (env CARRENTAL_BASE_URL)' },
  { flags: '--sandbox', description: 'use the embedded sandbox instead of a remote API (env CARRENTAL_SANDBOX=1)' },
  { flags: '--json [fields]', description: 'print the response payload as received, as JSON on stdout; with fields (a,b,c) only those, of each item of a list' },
  { flags: '--jq <expr>', description: 'filter the JSON output with a jq expression (no jq needed)' },
  { flags: '--wide', description: 'on a terminal, show ids whole and every column of a table, even wider than the screen' },
  { flags: '--no-pager', description: 'never page long output (also CARRENTAL_PAGER=cat; a pipe, CI or an AI agent never gets a pager)' },
  { flags: '--no-color', description: 'no colour (also NO_COLOR; off whenever stdout is not a terminal)' },
  { flags: '--no-input', description: 'never prompt; a missing value is a usage error (also when CI is set)' },
  { flags: '-y, --yes', description: 'answer yes to confirmations' },
  { flags: '--debug', description: 'trace HTTP requests and responses to stderr, credentials redacted (env CARRENTAL_DEBUG=1)' },
  { flags: '--timeout <seconds>', description: 'per-request timeout in seconds (env CARRENTAL_TIMEOUT; default 30)' },
] as const satisfies readonly OptionSpec[];

export const GLOBAL_OPTIONS: readonly OptionSpec[] = DECLARED;
/** The literal declarations, from which globals.ts types RawGlobals. */
export type DeclaredGlobalOptions = typeof DECLARED;

/** Flags commander adds by itself to the program (version) and to every command (help). */
export const VERSION_FLAGS = { flags: '-V, --version', description: 'print the version' } as const;
export const HELP_FLAGS = { flags: '-h, --help', description: 'display help for command' } as const;
