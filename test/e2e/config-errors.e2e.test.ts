// Every error of the `config` commands says `error:` (lower case, as every other command
// does), on one line, with exit 2 for a usage error: the command's own checks (unknown key,
// bad value, the API key) and commander's (a missing or extra argument, an unknown option or
// subcommand). Issue 27 saw `Error:` from `config set`. Each case runs in-process on the real
// command tree; the built CLI (a Node start each, needs `npm run build`) runs one of each
// kind, one unreadable config file and one coloured error, to show the process prints and
// exits the same.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { runCommand, TestHome } from '../helpers/cli.js';

const home = new TestHome();
afterAll(() => home.cleanup());

const USAGE: Array<[string[], string]> = [
  [['config', 'set', 'nosuch', 'x'], 'error: unknown setting "nosuch" (known: base_url, app_url, city)'],
  [['config', 'set', 'base_url', 'notaurl'], 'error: base_url must be an http(s) URL or "sandbox", got "notaurl"'],
  [['config', 'set', 'city', 'paris'], 'error: city must be la or miami, got "paris"'],
  [['config', 'set', 'api_key', 'x'], 'error: the API key is never set on the command line'],
  [['config', 'set'], "error: missing required argument 'key'"],
  [['config', 'set', 'city'], "error: missing required argument 'value'"],
  [['config', 'set', 'city', 'la', 'extra'], "error: too many arguments for 'set'"],
  [['config', 'set', 'city', 'la', '--bogus'], "error: unknown option '--bogus'"],
  [['config', 'get'], "error: missing required argument 'key'"],
  [['config', 'get', 'nosuch'], 'error: unknown setting "nosuch"'],
  [['config', 'get', 'city', 'extra'], "error: too many arguments for 'get'"],
  [['config', 'get', '--bogus'], "error: unknown option '--bogus'"],
  [['config', 'unset'], "error: missing required argument 'key'"],
  [['config', 'unset', 'nosuch'], 'error: unknown setting "nosuch"'],
  [['config', 'list', 'extra'], "error: too many arguments for 'list'"],
  [['config', 'list', '--bogus'], "error: unknown option '--bogus'"],
  [['config', 'path', 'extra'], "error: too many arguments for 'path'"],
  [['config', 'sett', 'city', 'la'], "error: unknown command 'sett'"],
  [['config', '--bogus'], "error: unknown option '--bogus'"],
  [['config', 'get', 'city', '--profile', 'nosuch'], 'error: profile "nosuch" does not exist'],
];

describe('config errors say `error:`', () => {
  it.each(USAGE)('carrental %j: exit 2', async (argv, line) => {
    const r = await runCommand(argv, { env: home.env() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith(line), r.stderr).toBe(true);
    expect(r.stderr).not.toMatch(/\bError:/);
  });

  it('the built CLI: the same line and exit 2, for a check of the command and for one of commander', async () => {
    const rows = USAGE.filter(([argv]) => ['config set nosuch x', 'config set'].includes(argv.join(' ')));
    expect(rows).toHaveLength(2);
    for (const [argv, line] of rows) {
      const r = await runBin(argv, { env: home.env() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.startsWith(line), r.stderr).toBe(true);
      expect(r.stderr).not.toMatch(/\bError:/);
    }
  });

  it('a config file that cannot be read: exit 1, `error:` and a hint, for each subcommand', async () => {
    const dir = join(home.dir, 'broken');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{bad', { mode: 0o600 });
    for (const argv of [['config', 'set', 'city', 'la'], ['config', 'get', 'city'], ['config', 'unset', 'city'], ['config', 'list']]) {
      // the built CLI once, the rest in-process
      const run = argv[1] === 'list' ? runBin : runCommand;
      const r = await run(argv, { env: home.env({ CARRENTAL_CONFIG_DIR: dir }) });
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.stderr, argv.join(' ')).toMatch(/^error: cannot read the config file .*\nhint: /);
      expect(r.stderr).not.toMatch(/\bError:/);
    }
  });

  it('on a terminal the word is the same, only red (FORCE_COLOR stands in for one)', async () => {
    for (const [argv, run] of [[['config', 'set'], runBin], [['config', 'set', 'nosuch', 'x'], runCommand]] as const) {
      const r = await run([...argv], { env: home.env({ FORCE_COLOR: '1' }) });
      expect(r.code).toBe(2);
      expect(r.stderr.startsWith('\u001b[31merror:\u001b[39m '), JSON.stringify(r.stderr)).toBe(true);
    }
  });

  it('with --json, each error is one JSON line with kind usage', async () => {
    for (const argv of [['config', 'set', '--json'], ['config', 'set', 'nosuch', 'x', '--json']]) {
      const r = await runCommand(argv, { env: home.env() });
      expect(r.code).toBe(2);
      const last = r.stderr.trim().split('\n').at(-1)!;
      expect(JSON.parse(last)).toMatchObject({ kind: 'usage', exit_code: 2 });
    }
  });
});
