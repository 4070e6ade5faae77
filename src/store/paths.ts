// The user's per-machine directories. Every one can be pointed elsewhere through an
// environment variable, so tests and CI jobs never touch the real home directory.
//
// Only the CARRENTAL_* overrides are read from the `env` argument; the platform
// defaults come from env-paths, which reads XDG_* / APPDATA from process.env itself.

import path from 'node:path';
import envPaths from 'env-paths';

// No "-nodejs" suffix: these are carrental's own directories, not a Node library's.
const platformPaths = () => envPaths('carrental', { suffix: '' });

function override(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  // An empty variable (`CARRENTAL_STATE_DIR= carrental …`) means "not set", as for XDG_*.
  return value ? path.resolve(value) : undefined;
}

/**
 * Where state that must survive between runs but is not user data lives (the
 * idempotency journal). Linux: `$XDG_STATE_HOME/carrental` (`~/.local/state/carrental`).
 * macOS and Windows have no separate state location, so it is the data directory.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = override(env, 'CARRENTAL_STATE_DIR');
  if (fromEnv) return fromEnv;
  const paths = platformPaths();
  // env-paths names XDG_STATE_HOME "log"; on macOS/Windows "log" is a logs folder.
  return process.platform === 'darwin' || process.platform === 'win32' ? paths.data : paths.log;
}

/** User data (the sandbox's state file). Linux: `$XDG_DATA_HOME/carrental`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return override(env, 'CARRENTAL_DATA_DIR') ?? platformPaths().data;
}

/** Configuration (profiles, credentials). Linux: `$XDG_CONFIG_HOME/carrental`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return override(env, 'CARRENTAL_CONFIG_DIR') ?? platformPaths().config;
}
