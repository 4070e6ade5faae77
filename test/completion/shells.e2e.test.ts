// The completion scripts in the real shells, installed the way a user installs them, against
// the built CLI: bash with bash-completion (the completion function called with COMP_WORDS
// as bash would set them), fish (`complete -C`, autoloaded from the user's completions
// directory with `carrental` on PATH) and zsh (typed into a tmux pane, Tab pressed, the
// pane read back). Each covers subcommands, a flag, an enum value and car aliases, which
// come from a sandbox through `carrental __complete cars`, and what the API offers with
// its description: reservations (all of them, and only those `cancel` and `pay-link` can
// act on), invoices, the typed car's extras after --extra, and doctor's operation ids.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../../src/commands/complete.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { ROOT, ShimDir } from '../helpers/bin.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { screenWhen, tmuxOn } from '../helpers/tmux.js';

const run = promisify(execFile);
const SUBCOMMANDS_CA = ['cancel', 'car', 'card-link', 'cards', 'cars'];

let sb: RunningSandbox;
let home: TestHome;
let shim: ShimDir;
let env: NodeJS.ProcessEnv;
/** A typed prefix of car aliases and the aliases it should complete to (2 to 8 of them, no longer common prefix). */
let aliasPrefix: string;
let aliasMatches: string[];
/** What `__complete <kind>` answers in-process (value → description), to compare the shells' candidates with. */
let expected: Record<'reservations' | 'cancellable' | 'payable' | 'invoices' | 'extras', Record<string, string>>;
/** A car with two or more extras, for --extra. */
let extrasCar: string;

function commonPrefix(words: string[]): string {
  let p = words[0] ?? '';
  for (const w of words) while (!w.startsWith(p)) p = p.slice(0, -1);
  return p;
}

beforeAll(async () => {
  // the real clock: the shells' completions run the built CLI on it, and which reservations are
  // cancellable or payable is measured against it (the seeded trips are relative to the sandbox's now)
  sb = await startSandbox({ quiet: true });
  home = new TestHome();
  shim = new ShimDir();
  env = home.env({
    PATH: shim.path(),
    CARRENTAL_BASE_URL: sb.baseUrl,
    CARRENTAL_API_KEY: sb.keys.booking_write,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    XDG_CONFIG_HOME: join(home.dir, 'xdg-config'),
    XDG_DATA_HOME: join(home.dir, 'xdg-data'),
    XDG_CACHE_HOME: join(home.dir, 'xdg-cache'),
  });
  // the expected aliases come from the API in-process, with a separate home so the shells' first Tab misses the cache
  const other = new TestHome();
  try {
    const all = await runCommand(['--base-url', sb.baseUrl, 'cars', '--all', '--json'], { env: other.env() });
    const aliases = (JSON.parse(all.stdout) as { cars: Array<{ car_alias: string }> }).cars.map((c) => c.car_alias).sort();
    for (const alias of aliases) {
      for (let n = 3; n < alias.length; n++) {
        const prefix = alias.slice(0, n);
        const matches = aliases.filter((a) => a.startsWith(prefix));
        if (matches.length >= 2 && matches.length <= 8 && commonPrefix(matches) === prefix) {
          aliasPrefix = prefix;
          aliasMatches = matches;
          break;
        }
      }
      if (aliasPrefix) break;
    }
    const oenv = other.env({ CARRENTAL_API_KEY: sb.keys.booking_write });
    const page = JSON.parse((await runCommand(['--base-url', sb.baseUrl, 'cars', '--city', 'la', '--json'], { env: oenv })).stdout) as {
      cars: Array<{ car_alias: string; prices: { extras: unknown[] } }>;
    };
    extrasCar = page.cars.find((c) => c.prices.extras.length >= 2)!.car_alias;
    expected = {} as typeof expected;
    for (const kind of ['reservations', 'cancellable', 'payable', 'invoices', 'extras'] as const) {
      const r = await runCommand(['--base-url', sb.baseUrl, '__complete', kind, ...(kind === 'extras' ? [extrasCar] : [])], { env: oenv });
      expected[kind] = Object.fromEntries(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')));
    }
  } finally {
    other.cleanup();
  }
  // the seeded customer has reservations of every kind: the filters must have something to drop
  expect(Object.keys(expected.cancellable).length).toBeGreaterThanOrEqual(2);
  expect(Object.keys(expected.cancellable).length).toBeLessThan(Object.keys(expected.reservations).length);
  expect(Object.keys(expected.payable).length).toBeGreaterThanOrEqual(1);
  expect(Object.keys(expected.payable).length).toBeLessThan(Object.keys(expected.reservations).length);
  expect(Object.keys(expected.extras).length).toBeGreaterThanOrEqual(2);
  expect(aliasPrefix, 'the fleet has aliases sharing a prefix').toBeTruthy();
  // a profile to complete after --profile
  expect((await runCommand(['config', 'set', 'city', 'miami', '--profile', 'work'], { env })).code).toBe(0);
});

afterAll(async () => {
  await sb?.close();
  shim?.cleanup();
  home?.cleanup();
});

const sorted = (xs: string[]) => [...xs].sort();
const OPERATION_IDS_GET = ['getCar', 'getInvoice', 'getProfile', 'getReservation', 'getVerification'];

describe('bash (bash-completion)', () => {
  // Sets COMP_WORDS as readline does (`=` and `:` are words of their own) and calls the function
  // bash-completion loaded from the user's completions directory.
  const DRIVER = `
    source /usr/share/bash-completion/bash_completion
    _completion_loader carrental
    complete -p carrental >/dev/null || { echo "no completion for carrental" >&2; exit 1; }
    COMP_LINE=$LINE
    COMP_POINT=\${#LINE}
    COMP_WORDS=("$@")
    COMP_CWORD=$(( $# - 1 ))
    COMPREPLY=()
    _carrental carrental "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s\\n' "\${COMPREPLY[@]}"
  `;

  beforeAll(() => {
    const dir = join(env.XDG_DATA_HOME!, 'bash-completion', 'completions');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(ROOT, 'completions', 'carrental.bash'), join(dir, 'carrental'));
  });

  async function complete(line: string): Promise<string[]> {
    // readline splits words at COMP_WORDBREAKS too: `--sort=p` is three words, a URL five
    const words = line.replace(/([=:])/g, ' $1 ').split(/ +/);
    if (line.endsWith(' ')) words[words.length - 1] = '';
    const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', DRIVER, 'bash', ...words], { env: { ...env, LINE: line } });
    return stdout.split('\n').filter(Boolean);
  }

  it('completes subcommands', async () => {
    expect(sorted(await complete('carrental ca'))).toEqual(SUBCOMMANDS_CA);
    expect(sorted(await complete('carrental auth '))).toEqual(['login', 'logout', 'status']);
  });

  it('completes flags of the command and the global ones', async () => {
    expect(await complete('carrental cars --so')).toEqual(['--sort']);
    expect(sorted(await complete('carrental cars --j'))).toEqual(['--jq', '--json']);
  });

  it('completes enum values, also after --flag=', async () => {
    expect(sorted(await complete('carrental cars --city '))).toEqual(['la', 'miami']);
    expect(sorted(await complete('carrental --json cars --body-type=s'))).toEqual(['sedan', 'suv']);
    expect(sorted(await complete('carrental pay-link 0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10 --type '))).toEqual(['deposit', 'rent']);
  });

  it('completes car aliases from the API and profile names from the config', async () => {
    expect(sorted(await complete(`carrental car ${aliasPrefix}`))).toEqual(aliasMatches);
    expect(await complete('carrental --profile w')).toEqual(['work']);
    // the profile and base URL typed on the line are the ones asked
    expect(sorted(await complete(`carrental --profile work --base-url ${sb.baseUrl} quote ${aliasPrefix}`))).toEqual(aliasMatches);
    expect(await complete(`carrental --base-url http://127.0.0.1:9/v1 car ${aliasPrefix}`)).toEqual([]);
  });

  it('lists several reservations with their descriptions in parentheses, and inserts one alone', async () => {
    const listed = await complete('carrental cancel ');
    expect(sorted(listed)).toEqual(sorted(Object.entries(expected.cancellable).map(([v, d]) => `${v}  (${d})`)));
    const invoices = await complete('carrental invoice ');
    expect(sorted(invoices)).toEqual(sorted(Object.entries(expected.invoices).map(([v, d]) => `${v}  (${d})`)));
    // a typed prefix that only one uuid has: the bare value, ready to insert
    const [one] = Object.keys(expected.reservations);
    const prefix = one.slice(0, 8);
    if (Object.keys(expected.reservations).filter((u) => u.startsWith(prefix)).length === 1) {
      expect(await complete(`carrental trips ${prefix}`)).toEqual([one]);
    }
  });

  it('pay-link offers only what it can get a link for; --extra the typed car\'s extras; doctor --require the operation ids', async () => {
    const payable = (await complete('carrental pay-link ')).map((l) => l.split('  (')[0]);
    expect(sorted(payable)).toEqual(sorted(Object.keys(expected.payable)));
    const extras = (await complete(`carrental reserve ${extrasCar} --from +5d --extra `)).map((l) => l.split('  (')[0]);
    expect(sorted(extras)).toEqual(sorted(Object.keys(expected.extras)));
    expect(sorted(await complete('carrental doctor --require get'))).toEqual(OPERATION_IDS_GET);
  });
});

describe('fish', () => {
  beforeAll(() => {
    const dir = join(env.XDG_CONFIG_HOME!, 'fish', 'completions');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(ROOT, 'completions', 'carrental.fish'), join(dir, 'carrental.fish'));
  });

  async function complete(line: string): Promise<string[]> {
    const { stdout } = await run('fish', ['-c', 'complete -C "$LINE"'], { env: { ...env, LINE: line } });
    // fish prints "candidate<TAB>description"
    return stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0]);
  }

  it('completes subcommands', async () => {
    expect(sorted(await complete('carrental ca'))).toEqual(SUBCOMMANDS_CA);
    expect(sorted(await complete('carrental config '))).toEqual(['get', 'list', 'path', 'set', 'unset']);
  });

  it('completes flags', async () => {
    expect(await complete('carrental cars --so')).toEqual(['--sort']);
  });

  it('completes enum values', async () => {
    expect(sorted(await complete('carrental quote x --protection '))).toEqual(['minimum', 'standard']);
    expect(sorted(await complete('carrental cars --sort='))).toEqual(['--sort=price_asc', '--sort=price_desc']);
  });

  it('completes car aliases from the API, after global flags too', async () => {
    expect(sorted(await complete(`carrental --json car ${aliasPrefix}`))).toEqual(aliasMatches);
    expect(await complete('carrental --profile w')).toEqual(['work']);
    expect(await complete(`carrental --base-url=http://127.0.0.1:9/v1 car ${aliasPrefix}`)).toEqual([]);
  });

  /** fish's own "candidate<TAB>description" lines. */
  async function described(line: string): Promise<Record<string, string>> {
    const { stdout } = await run('fish', ['-c', 'complete -C "$LINE"'], { env: { ...env, LINE: line } });
    return Object.fromEntries(stdout.split('\n').filter(Boolean).map((l) => l.split('\t')));
  }

  it('offers reservations and invoices with their descriptions, cancel and pay-link only what they can act on', async () => {
    expect(await described('carrental trips ')).toEqual(expected.reservations);
    expect(await described('carrental cancel ')).toEqual(expected.cancellable);
    expect(await described('carrental pay-link ')).toEqual(expected.payable);
    expect(await described('carrental invoice ')).toEqual(expected.invoices);
  });

  it("--extra completes the typed car's extras, doctor --require the operation ids", async () => {
    expect(await described(`carrental quote ${extrasCar} --extra `)).toEqual(expected.extras);
    expect(sorted(await complete('carrental doctor --require get'))).toEqual(OPERATION_IDS_GET);
  });
});

describe('zsh (typed into tmux)', () => {
  const socket = `carrental-test-${process.pid}`;
  const tmux = tmuxOn(socket, () => env);
  const pane = () => tmux('capture-pane', '-p', '-t', 'zsh');
  let fpathDir: string;

  const waitFor = (what: string, ok: (screen: string) => boolean): Promise<string> => screenWhen(tmux, 'zsh', pane, ok, `zsh to show ${what}`);

  /** Types the line, presses Tab, and returns the screen once `ok` holds (or fails showing it). */
  async function tab(line: string, what: string, ok: (screen: string) => boolean, presses = 1): Promise<string> {
    // kill the line and clear the screen with zle keys (^C would race with the keys after it)
    tmux('send-keys', '-t', 'zsh', 'C-u', 'C-l');
    await waitFor('a clear prompt', (s) => s.trim() === 'READY>');
    tmux('send-keys', '-t', 'zsh', '-l', line);
    // zsh inserts what all candidates share on the first Tab and lists them on the next
    for (let i = 0; i < presses; i++) tmux('send-keys', '-t', 'zsh', 'Tab');
    return waitFor(what, ok);
  }

  const words = (screen: string) => screen.split(/\s+/).filter(Boolean);

  beforeAll(async () => {
    fpathDir = join(home.dir, 'zsh-functions');
    mkdirSync(fpathDir, { recursive: true });
    copyFileSync(join(ROOT, 'completions', '_carrental'), join(fpathDir, '_carrental'));
    tmux('new-session', '-d', '-s', 'zsh', '-x', '200', '-y', '50', 'zsh -f');
    const setup = `fpath=(${fpathDir} $fpath); autoload -U compinit; compinit -u -d ${join(home.dir, 'zcompdump')}; PS1='READY>'`;
    tmux('send-keys', '-t', 'zsh', '-l', setup);
    tmux('send-keys', '-t', 'zsh', 'Enter');
    // the typed setup line contains READY> too: wait for the prompt itself
    await waitFor('compinit', (s) => /^READY>/m.test(s));
  });

  afterAll(() => tmux.stop());

  it('completes subcommands, with their descriptions', async () => {
    const screen = await tab('carrental ca', 'the subcommand list', (s) => s.includes('card-link') && s.includes('cancel'));
    for (const name of SUBCOMMANDS_CA) expect(screen).toMatch(new RegExp(`^${name} +-- `, 'm'));
    expect(screen).toContain('search cars; with dates, shows availability and trip totals');
  });

  it('completes a flag', async () => {
    const screen = await tab('carrental cars --so', 'the --sort flag', (s) => s.includes('--sort'));
    expect(screen).toContain('READY>carrental cars --sort');
  });

  it('completes enum values', async () => {
    const screen = await tab('carrental cars --body-type s', 'body types', (s) => /\bsuv\b/.test(s));
    expect(words(screen.split('\n').slice(1).join('\n'))).toEqual(['sedan', 'suv']);
  });

  it('completes car aliases from the API', async () => {
    const screen = await tab(`carrental car ${aliasPrefix}`, 'car aliases', (s) => aliasMatches.every((a) => s.includes(a)));
    expect(sorted(words(screen.split('\n').slice(1).join('\n')))).toEqual(aliasMatches);
  });

  it('lists the reservations cancel can act on, each with its description', async () => {
    const want = Object.entries(expected.cancellable);
    const screen = await tab('carrental cancel ', 'cancellable reservations', (s) => want.every(([uuid]) => s.includes(uuid)));
    for (const [uuid, description] of want) expect(screen).toMatch(new RegExp(`^${uuid} +-- ${description.replace(/[$.()]/g, '\\$&')}`, 'm'));
    for (const uuid of Object.keys(expected.reservations)) if (!(uuid in expected.cancellable)) expect(screen).not.toContain(uuid);
  });

  it("completes --extra from the typed car's extras", async () => {
    const want = Object.keys(expected.extras);
    const screen = await tab(`carrental reserve ${extrasCar} --extra `, 'extras', (s) => want.every((e) => s.includes(e)), 2);
    for (const [extra, description] of Object.entries(expected.extras)) expect(screen).toMatch(new RegExp(`^${extra} +-- ${description.replace(/[$.()]/g, '\\$&')}$`, 'm'));
  });
});

it('the dynamic candidates went through the spawned CLI and its cache', () => {
  expect(existsSync(join(home.dir, 'state', CACHE_FILE))).toBe(true);
});
