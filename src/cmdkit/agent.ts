// Who is at the keyboard: an AI agent (which reads a pseudo-terminal as a pipe would be
// read: no prompt it can answer, no redraw it can follow), or a person who asked for the
// accessible mode. Import-free: it loads with every command.

/**
 * The variables coding agents set in the shells they run commands in, as GitHub's CLI
 * (`internal/agents/detect.go`) and the Stripe CLI (`pkg/useragent/useragent.go`) read
 * them. Left out on purpose: the ones that name an editor or a hosting environment a
 * person also types in (`CURSOR_TRACE_ID`, `REPL_ID`, `TERM_PROGRAM=kiro`,
 * `GOOSE_PROVIDER`), since treating that person's terminal as a pipe would take their
 * prompts away. docs/configuration.md lists the same table.
 */
export const AGENT_VARIABLES: ReadonlyArray<readonly [variable: string, agent: string, value?: string]> = [
  ['AI_AGENT', 'any agent that names itself'],
  ['AGENT', 'Amp', 'amp'],
  ['CLAUDECODE', 'Claude Code'],
  ['CLAUDE_CODE', 'Claude Code'],
  ['CLAUDE_CODE_ENTRYPOINT', 'Claude Code'],
  ['CODEX_SANDBOX', 'OpenAI Codex'],
  ['CODEX_CI', 'OpenAI Codex'],
  ['CODEX_THREAD_ID', 'OpenAI Codex'],
  ['CODEX_SANDBOX_NETWORK_DISABLED', 'OpenAI Codex'],
  ['CODEX_INTERNAL_ORIGINATOR_OVERRIDE', 'OpenAI Codex'],
  ['CURSOR_AGENT', 'Cursor CLI'],
  ['CURSOR_EXTENSION_HOST_ROLE', 'Cursor', 'agent-exec'],
  ['GEMINI_CLI', 'Gemini CLI'],
  ['COPILOT_CLI', 'GitHub Copilot CLI'],
  ['OPENCODE', 'OpenCode'],
  ['ANTIGRAVITY_AGENT', 'Antigravity'],
  ['ANTIGRAVITY_CLI_ALIAS', 'Antigravity'],
  ['AUGMENT_AGENT', 'Augment CLI'],
  ['CLINE_ACTIVE', 'Cline'],
  ['HERMES_AGENT', 'Hermes'],
  ['OPENCLAW_SHELL', 'OpenClaw'],
];

const set = (v: string | undefined) => v !== undefined && v.trim() !== '';
const off = (v: string | undefined) => v !== undefined && ['0', 'false', 'no', 'off'].includes(v.trim().toLowerCase());

/**
 * The agent running carrental, or undefined for a person. `CARRENTAL_AGENT=1` says so
 * where no variable does; `CARRENTAL_AGENT=0` turns the detection off.
 */
export function agentName(env: NodeJS.ProcessEnv): string | undefined {
  const own = env.CARRENTAL_AGENT;
  if (off(own)) return undefined;
  if (set(own)) return 'CARRENTAL_AGENT';
  for (const [variable, agent, value] of AGENT_VARIABLES) {
    const v = env[variable];
    if (value === undefined ? set(v) : v?.trim().toLowerCase() === value) return agent;
  }
  return undefined;
}

/**
 * Accessible mode: `CARRENTAL_ACCESSIBLE=1`, or a terminal that says it cannot redraw
 * (`TERM=dumb`); `CARRENTAL_ACCESSIBLE=0` turns it off.
 */
export function isAccessible(env: NodeJS.ProcessEnv): boolean {
  const own = env.CARRENTAL_ACCESSIBLE;
  if (off(own) || own === '') return false;
  if (set(own)) return true;
  return env.TERM === 'dumb';
}
