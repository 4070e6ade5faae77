// `--dry-run` on the embedded sandbox writes nothing (issue 35): as the first `--sandbox`
// command (no state file yet) it creates no state file, folder or lock; on an existing
// state it reads it and leaves every file byte for byte, mtime included. In-process, each
// test in its own temp home (config, state and data folders and the sandbox state inside).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';

let home: TestHome;
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const ALIAS = 'toyota-camry-1001';
const UUID = '7f3c2a8e-0000-4000-8000-000000000001';

/** `withStateVar`: false leaves CARRENTAL_SANDBOX_STATE unset, so the state goes to the data folder's default name. */
const cli = (args: string[], withStateVar = true) => {
  const env = home.env();
  if (!withStateVar) delete env.CARRENTAL_SANDBOX_STATE;
  return runCommand(['--sandbox', ...args], { env, sleep: async () => {} });
};

const dryRuns = (uuid: string) => [
  ['reserve', ALIAS, '--from', 'tomorrow 10:00', '--days', '3', '--dry-run'],
  ['reserve', ALIAS, '--from', 'tomorrow 10:00', '--days', '3', '--dry-run', '--json'],
  ['cancel', uuid, '--dry-run'],
  ['api', 'POST', '/my/reservation', '--body', `{"car_alias":"${ALIAS}"}`, '--dry-run'],
  ['api', 'DELETE', `/my/reservation/${uuid}`, '--dry-run'],
  ['card-link', '--dry-run'],
  ['pay-link', uuid, '--dry-run'],
];

/** Every file and folder under `dir`: its path, kind, mtime and, for a file, its bytes' hash. */
function snapshot(dir: string): string[] {
  const lines: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) {
        lines.push(`${p} dir ${st.mtimeMs}`);
        walk(p);
      } else lines.push(`${p} file ${st.mtimeMs} ${st.size} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  lines.push(`${home.dir} dir ${statSync(dir).mtimeMs}`);
  walk(dir);
  return lines;
}

describe('--sandbox --dry-run writes nothing (issue 35)', () => {
  for (const withStateVar of [true, false]) {
    it(`with no state yet (${withStateVar ? 'CARRENTAL_SANDBOX_STATE' : 'the default state path'}): no state file, folder or lock is created; reserve, cancel and api still preview`, async () => {
      const before = snapshot(home.dir);
      expect(before).toEqual([`${home.dir} dir ${statSync(home.dir).mtimeMs}`]);
      for (const args of dryRuns(UUID)) {
        const r = await cli(args, withStateVar);
        if (args[0] === 'cancel') {
          // no such reservation among the (fresh) trips: the real run's read would 404 as well
          expect(r.code, r.stderr).toBe(4);
        } else {
          expect(r.code, r.stderr).toBe(0);
          expect(r.stderr).toContain('dry run: nothing was sent and nothing was written');
        }
        expect(snapshot(home.dir), args.join(' ')).toEqual(before);
      }
      expect(existsSync(join(home.dir, 'data'))).toBe(false);
    });
  }

  it('on an existing state: it is read (the cancel finds the reservation), leftovers of a dead writer are not swept, every file is byte for byte and mtime the same', async () => {
    const booked = await cli(['reserve', ALIAS, '--from', 'tomorrow 10:00', '--days', '3', '-y', '--json']);
    expect(booked.code, booked.stderr).toBe(0);
    const uuid = (JSON.parse(booked.stdout) as { uuid: string }).uuid;
    expect(existsSync(join(home.dir, 'data', 'sandbox-state.json'))).toBe(true);
    // a read first: whatever a first read settles is settled before the snapshot
    expect((await cli(['trips'])).code).toBe(0);
    // what a killed Node 20 write leaves (pid 999999999 runs nowhere): a real command sweeps it, a dry run must not
    writeFileSync(join(home.dir, 'data', 'sandbox-state.json.999999999.1.tmp'), '{');
    const before = snapshot(home.dir);
    for (const args of [...dryRuns(uuid), ['extend-link', uuid, '--to', '+6d 10:00', '--dry-run']]) {
      const r = await cli(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('dry run: nothing was sent and nothing was written');
      if (args[0] === 'cancel') expect(r.stdout).toContain(`DELETE `);
      if (args[0] === 'reserve' && args.includes('--json')) expect(JSON.parse(r.stdout)).toMatchObject({ dry_run: true, journal: { decision: 'replay' } });
      expect(snapshot(home.dir), args.join(' ')).toEqual(before);
    }
  });
});
