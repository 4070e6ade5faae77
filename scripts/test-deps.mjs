// The first step of `npm test`: the system packages the browser, terminal and shell tests
// need. When all are there it only looks (a few file checks, no process started). When some
// are missing: as root it installs them with apt-get, as .ci/run always did; otherwise it
// stops at once with the one line to run, instead of letting the suite fail test by test.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian package → how to tell it is installed. */
export const NEEDS = {
  'chromium-headless-shell': { command: 'chromium-headless-shell', for: 'the browser tests (Chromium\'s headless shell, through playwright-core)' },
  tmux: { command: 'tmux', for: 'the interactive terminal tests' },
  fish: { command: 'fish', for: 'the fish completion tests' },
  zsh: { command: 'zsh', for: 'the zsh completion tests' },
  jq: { command: 'jq', for: 'the documentation examples' },
  sqlite3: { command: 'sqlite3', for: 'the SQLite sandbox store tests (the shell opens the state file)' },
  'bash-completion': { file: '/usr/share/bash-completion/bash_completion', for: 'the bash completion tests' },
};

function onPath(command, path = process.env.PATH ?? '') {
  return path.split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The Debian packages whose command or file is missing. */
export function missingPackages(path = process.env.PATH) {
  return Object.entries(NEEDS)
    .filter(([, need]) => (need.command ? !onPath(need.command, path) : !existsSync(need.file)))
    .map(([name]) => name);
}

export const installLine = (packages) => `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`;

function main() {
  const missing = missingPackages();
  if (missing.length === 0) return 0;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !onPath('apt-get')) {
    console.error(`npm test needs ${missing.join(', ')} (${missing.map((m) => NEEDS[m].for).join('; ')}). Install them, then run npm test again:\n  ${installLine(missing)}`);
    return 1;
  }
  console.error(`== apt-get install ${missing.join(' ')} (for ${missing.map((m) => NEEDS[m].for).join('; ')})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', ...missing]]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (r.status !== 0) {
      console.error(`apt-get ${args[0]} failed (exit ${r.status}); install them by hand:\n  ${installLine(missing)}`);
      return 1;
    }
  }
  const still = missingPackages();
  if (still.length) {
    console.error(`still missing after apt-get: ${still.join(', ')}`);
    return 1;
  }
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main();
