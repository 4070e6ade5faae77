// The install lines of docs/completion.md, as written, for a non-root user in a fresh home:
// each shell's block is read from the page and run by that shell as `nobody` (when the
// suite runs as root; as the current user otherwise), in a home holding only what a new
// account gets (/etc/skel). Then `carrental ca<Tab>` is typed into the interactive shell
// in tmux, which must list the matching commands: the lines put the script where that
// shell, started as a user's login would, finds it.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ShimDir } from '../helpers/bin.js';

const SHELL_NAMES = ['bash', 'zsh', 'fish'] as const;
type ShellName = (typeof SHELL_NAMES)[number];
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** The ```sh blocks of docs/completion.md that start with `# <shell>`. */
function installBlocks(): Record<ShellName, string> {
  const page = readFileSync(join(ROOT, 'docs', 'completion.md'), 'utf8');
  const blocks = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  const out = {} as Record<ShellName, string>;
  for (const shell of SHELL_NAMES) {
    const found = blocks.filter((b) => b.startsWith(`# ${shell}`));
    expect(found, `one install block for ${shell}`).toHaveLength(1);
    out[shell] = found[0];
  }
  return out;
}

let shim: ShimDir;
let base: string;
beforeAll(() => {
  shim = new ShimDir();
  base = mkdtempSync(join(tmpdir(), 'carrental-install-'));
  // the user must reach the shim (mkdtemp makes directories 0700)
  chmodSync(shim.dir, 0o755);
  chmodSync(base, 0o755);
  // and the Node under test: under the CI's Node matrix that is root's npx cache, which
  // `nobody` cannot enter; a copy of the binary serves the same version
  if (asRoot && spawnSync('runuser', ['-u', 'nobody', '--', 'test', '-x', process.execPath]).status !== 0) {
    const node = join(base, 'node');
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
    writeFileSync(join(shim.dir, 'carrental'), `#!/bin/sh\nexec '${node}' '${BIN}' "$@"\n`);
  }
});
afterAll(() => {
  shim?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

describe.each(SHELL_NAMES)('%s', (shell) => {
  let home: string;
  const socket = `carrental-install-${process.pid}-${shell}`;
  /** A command run as the user, with a new login's environment and nothing else. */
  const asUser = (argv: string[]) => [
    ...(asRoot ? ['runuser', '-u', 'nobody', '--'] : []),
    'env',
    '-i',
    `HOME=${home}`,
    `PATH=${shim.dir}:/usr/bin:/bin`,
    'TERM=xterm-256color',
    'LANG=C.UTF-8',
    `USER=${asRoot ? 'nobody' : (process.env.USER ?? 'user')}`,
    ...argv,
  ];
  const run = (argv: string[]) => {
    const [cmd, ...args] = asUser(argv);
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: home });
  };
  // tmux itself runs as the suite's user (it does not start for `nobody` in every
  // container); the shell in its pane is the user's
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

  beforeAll(() => {
    home = join(base, shell);
    execFileSync('mkdir', [home]);
    // what `useradd -m` gives a new account
    for (const f of readdirSync('/etc/skel')) copyFileSync(join('/etc/skel', f), join(home, f));
    // fish's first interactive start runs python in the background, orphaned, to turn man
    // pages into completions under this folder unless it exists: it outlived the test and
    // wrote into the home being removed (ENOTEMPTY). Those completions are not ours.
    const generated = shell === 'fish' ? join(home, '.local', 'share', 'fish', 'generated_completions') : undefined;
    if (generated) mkdirSync(generated, { recursive: true });
    if (asRoot) {
      for (const f of ['', ...readdirSync(home)]) chownSync(join(home, f), NOBODY, NOBODY);
      if (generated) for (const d of ['.local/share', '.local/share/fish', '.local/share/fish/generated_completions']) chownSync(join(home, d), NOBODY, NOBODY);
    }
  });

  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // no server was started, or it is gone
    }
  });

  it('the install lines of docs/completion.md run as written, without root', () => {
    const block = installBlocks()[shell];
    run([shell, '-c', block]);
    const installed = { bash: '.local/share/bash-completion/completions/carrental', zsh: '.zsh/completions/_carrental', fish: '.config/fish/completions/carrental.fish' }[shell];
    const shipped = { bash: 'carrental.bash', zsh: '_carrental', fish: 'carrental.fish' }[shell];
    expect(existsSync(join(home, installed))).toBe(true);
    expect(readFileSync(join(home, installed), 'utf8')).toBe(readFileSync(join(ROOT, 'completions', shipped), 'utf8'));
  });

  it('a new interactive shell then completes `carrental ca`', async () => {
    const pane = () => tmux('capture-pane', '-p', '-t', 'sh');
    const waitFor = async (what: string, ok: (screen: string) => boolean) => {
      const deadline = Date.now() + 15_000;
      let screen = '';
      while (Date.now() < deadline) {
        screen = pane();
        if (ok(screen)) return screen;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${shell}: timed out waiting for ${what}; the pane shows:\n${screen}`);
    };
    tmux('new-session', '-d', '-s', 'sh', '-x', '160', '-y', '40', `cd ${q(home)} && exec ${asUser([shell, '-i']).map(q).join(' ')}`);
    // the prompt: bash's from /etc/skel/.bashrc ends in $, zsh's default in %, fish's in >
    await waitFor('the prompt', (s) => /[$%>#] *$/m.test(s.trimEnd()));
    tmux('send-keys', '-t', 'sh', '-l', 'carrental ca');
    // bash lists the candidates on the second Tab; zsh and fish on the first (a second is harmless)
    tmux('send-keys', '-t', 'sh', 'Tab');
    tmux('send-keys', '-t', 'sh', 'Tab');
    const screen = await waitFor('the candidates', (s) => ['cancel', 'card-link', 'cards', 'cars'].every((c) => s.includes(c)));
    expect(screen).toContain('carrental ca');
  });
});
