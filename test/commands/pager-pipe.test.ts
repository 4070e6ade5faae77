// Issue 27, in-process (the tmux file pager-pipe.tmux.e2e.test.ts runs the built CLI): a
// configured pager is never used when stdout is a pipe, even with stderr and stdin on a
// terminal and output taller than the screen. The pager leaves a mark (a file) when it runs;
// with stdout a terminal it does, so the test can fail.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { FakeOut, TestHome } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);

const CARS = 30;

/** `cars --limit 30` with a stdout 20 rows tall (a terminal or not), stderr and stdin terminals. */
async function tall(stdoutIsTerminal: boolean) {
  const stdout = Object.assign(new FakeOut(stdoutIsTerminal), { rows: 20 });
  const stderr = new FakeOut(true);
  const stdin = new PassThrough() as unknown as InStream;
  stdin.isTTY = true;
  const mark = join(home.dir, 'paged');
  const code = await runCli(['--base-url', sb.baseUrl, 'cars', '--city', 'la', '--limit', String(CARS)], {
    io: { stdin, stdout, stderr },
    env: home.env({ NO_COLOR: '1', CARRENTAL_PAGER: `touch '${mark}'; cat` }),
  });
  return { code, stdout: stdout.text(), paged: existsSync(mark) };
}

it('stdout a terminal: the tall list goes through the pager', async () => {
  const r = await tall(true);
  expect(r.code).toBe(0);
  expect(r.paged).toBe(true);
});

it('stdout a pipe: no pager, every line there, tab-separated', async () => {
  const r = await tall(false);
  expect(r.code).toBe(0);
  expect(r.paged, 'the pager ran although stdout was a pipe').toBe(false);
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(CARS);
  for (const line of lines) expect(line).toContain('\t');
});
