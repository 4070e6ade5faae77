// The examples a user reads first, in the bare `carrental` overview, `carrental --help` and
// the `--help` of the commands that take dates or aliases, run by the built CLI against the
// embedded sandbox, with its clock at a fixed day and a year later: no example may
// hard-code a date that rots, nor name a car the sandbox does not have.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { runBin, ShimDir } from '../helpers/bin.js';
import { TestHome } from '../helpers/cli.js';

const CLOCKS = ['2026-11-20T18:00:00Z', '2027-11-20T18:00:00Z'];
/** Commands whose help examples take dates or aliases. */
const DATED = ['cars', 'car', 'quote', 'trips', 'reserve', 'extend-link', 'api'];
const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let shim: ShimDir;
beforeAll(() => {
  shim = new ShimDir();
});
afterAll(() => shim.cleanup());

/** `$ carrental ...` lines of a help text, and the indented `carrental ...` lines of the overview. */
function examplesIn(text: string): string[] {
  return text
    .split('\n')
    .map((l) => /^\s+(?:\$ )?(carrental .*)$/.exec(l)?.[1])
    .filter((c): c is string => !!c && !c.includes('<alias>') && !/config set|auth login/.test(c));
}

function helpExamples(): string[] {
  return COMMANDS.filter((c) => DATED.includes(c.name)).flatMap((c) =>
    (c.examples ?? []).filter((e) => !/--watch|--open|on a terminal/.test(e)).map((e) => (/^carrental (reserve|cancel) /.test(e) && !/ -y\b/.test(e) ? `${e} -y` : e)),
  );
}

describe.each(CLOCKS)('help examples with the sandbox clock at %s', (clock) => {
  const home = new TestHome();
  const env = home.env({ CARRENTAL_SANDBOX: '1', CARRENTAL_SANDBOX_NOW: clock, LANG: 'C.UTF-8' });
  let uuid = '';
  const bash = (command: string) => spawnSync('bash', ['--noprofile', '--norc', '-o', 'pipefail', '-c', command], { env: { ...env, PATH: shim.path() }, cwd: home.dir, encoding: 'utf8', timeout: 30_000 });

  beforeAll(async () => {
    const r = await runBin(['reserve', 'honda-civic-1006', '--from', '+25d 10:00', '--days', '2', '-y'], { env });
    expect(r.code, r.stderr).toBe(0);
    uuid = UUID_RE.exec(r.stdout)![0];
  });
  afterAll(() => home.cleanup());

  it('the overview and the root help name only runnable examples', async () => {
    const overview = await runBin([], { env });
    const root = await runBin(['--help'], { env });
    const lines = [...examplesIn(overview.stdout), ...examplesIn(root.stdout.split('Examples:')[1] ?? '')];
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const r = bash(line);
      expect(r.status, `$ ${line}\n${r.stderr}`).toBe(0);
    }
  });

  it.each(helpExamples())('%s', (example) => {
    const r = bash(example.replace(/<uuid>/g, uuid));
    expect(r.status, `$ ${example}\n${r.stdout}\n${r.stderr}`).toBe(0);
  });
});
