// A question must never wait behind the pager: once a command reaches for stdin (a
// prompt), what HeldOutput kept is shown at once, in order, and nothing after it is held
// or paged. The pager leaves a mark when it runs, so a paging `finish` is seen.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { HeldOutput } from '../../src/cmdkit/pager.js';
import { FakeOut } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'carrental-pager-'));
afterEach(() => rmSync(join(dir, 'paged'), { force: true }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function terminal() {
  const out = Object.assign(new FakeOut(true), { rows: 5 });
  const err = new FakeOut(true);
  return { out, err, held: new HeldOutput(out, err) };
}
const tall = Array.from({ length: 10 }, (_, i) => `line ${i}\n`).join('');
const pager = `touch '${join(dir, 'paged')}'; cat`;

it('held until finish, then paged when taller than the screen (the case release must not break)', async () => {
  const { out, held } = terminal();
  held.stdout.write(tall);
  expect(out.text()).toBe('');
  await held.finish(pager, { PATH: process.env.PATH });
  expect(existsSync(join(dir, 'paged'))).toBe(true);
});

it('release shows what was held, in order, and later writes go straight through; finish pages nothing', async () => {
  const { out, err, held } = terminal();
  held.stdout.write(tall);
  held.stderr.write('warning: about to ask\n');
  held.release();
  expect(out.text()).toBe(tall);
  expect(err.text()).toBe('warning: about to ask\n');
  held.stdout.write('Create and cancel a real reservation? (y/N) ');
  expect(out.text()).toBe(`${tall}Create and cancel a real reservation? (y/N) `);
  held.stdout.write(tall);
  await held.finish(pager, { PATH: process.env.PATH });
  expect(existsSync(join(dir, 'paged'))).toBe(false);
  expect(out.text()).toBe(`${tall}Create and cancel a real reservation? (y/N) ${tall}`);
});
