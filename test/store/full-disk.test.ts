// The journal and the config file on a disk that is full, read-only or missing: the old
// file stays whole, and for the journal nothing is sent (exit 1, one line naming the
// file). A real 64 KiB tmpfs where the test may mount one (root), an injected short
// write everywhere.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import type { AtomicFs } from '../../src/store/atomic-file.js';
import { ConfigStore } from '../../src/store/config.js';
import { credentialFingerprint, Journal } from '../../src/store/journal.js';
import { FROM, TO, requests, test as bookingTest } from '../booking/sandbox.js';
import { runCommand } from '../helpers/cli.js';

/** write(2) on a nearly full disk: `budget` bytes in all, then nothing. */
function shortWriter(budget: number): AtomicFs {
  let written = 0;
  return {
    ...fs,
    writeSync: (fd, buffer, offset, length, position) => {
      const n = Math.max(0, Math.min(length, budget - written));
      written += n;
      return n === 0 ? 0 : fs.writeSync(fd, buffer, offset, n, position);
    },
  };
}

describe('config writes are whole or nothing (injected short write)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'carrental-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a short write fails naming the file and leaves every profile as it was', async () => {
    const store = new ConfigStore(dir);
    for (let i = 0; i < 60; i++) await store.update(`p${i}`, (p) => (p.city = 'la'));
    const before = readFileSync(store.path, 'utf8');
    expect(before.length).toBeGreaterThan(1024);

    const err = await new ConfigStore(dir, shortWriter(1024)).update('p0', (p) => (p.city = 'miami')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(1);
    expect((err as CliError).message).toBe(`cannot write the config file ${store.path} (ENOSPC); nothing was changed`);
    expect(readFileSync(store.path, 'utf8')).toBe(before);
    expect(Object.keys(new ConfigStore(dir).profiles())).toHaveLength(60);
    expect(readdirSync(dir).sort()).toEqual(['config.json']);
  });

  it('keeps the file format: tab-indented JSON, 0600, other top-level keys kept', async () => {
    const store = new ConfigStore(dir);
    writeFileSync(store.path, JSON.stringify({ profiles: { a: { city: 'la' } }, note: 'kept' }));
    await store.update('b', (p) => (p.city = 'miami'));
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({ profiles: { a: { city: 'la' }, b: { city: 'miami' } }, note: 'kept' });
    expect(readFileSync(store.path, 'utf8')).toContain('\n\t"profiles"');
    expect(fs.statSync(store.path).mode & 0o777).toBe(0o600);
  });
});

describe('the journal cannot be written: nothing is sent', () => {
  /** `reserve` of the fixture's car for FROM..TO with the booking key, plus `env`. */
  const test = bookingTest.extend('reserve', async ({ alias, cli }) => (env: NodeJS.ProcessEnv) => cli(['reserve', alias, '--from', FROM, '--to', TO, '-y'], { env }));

  test('a state directory that cannot be created (a file is in the way): exit 1 naming the journal, no create sent', async ({ sb, home, reserve }) => {
    writeFileSync(join(home.dir, 'blocker'), '');
    const stateDir = join(home.dir, 'blocker', 'state');
    const r = await reserve({ CARRENTAL_STATE_DIR: stateDir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: cannot create the directory of the idempotency journal ${join(stateDir, 'journal.json')} (ENOTDIR)`);
    expect(await requests(sb, 'createReservation')).toEqual([]);
  });

  // A real filesystem that runs out of space or turns read-only. Mounting needs root.
  const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;

  describe.runIf(canMount)('on a real 64 KiB tmpfs (root only)', () => {
    /** The tmpfs (removed after the test) with config and state dirs, and the journal's bytes before the test. */
    const onTmpfs = test.extend('disk', async ({ sb }, { onCleanup }) => {
      const mnt = mkdtempSync(join(tmpdir(), 'carrental-tmpfs-'));
      onCleanup(() => {
        spawnSync('umount', [mnt]);
        rmSync(mnt, { recursive: true, force: true });
      });
      const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt]);
      if (r.status !== 0) throw new Error(`mount failed: ${r.stderr}`);
      mkdirSync(join(mnt, 'state'));
      mkdirSync(join(mnt, 'config'));
      const journalFile = join(mnt, 'state', 'journal.json');
      // A pending command from an earlier run: its key must survive whatever happens next.
      const { entry } = await new Journal({ path: journalFile }).begin({
        profile: 'default',
        baseUrl: sb.baseUrl,
        credential: credentialFingerprint(sb.keys.booking_write),
        operation: 'cancelReservation',
        target: '7f3c2a8e-1111-4000-8000-000000000001',
        request: { uuid: '7f3c2a8e-1111-4000-8000-000000000001' },
      });
      const before = readFileSync(journalFile, 'utf8');
      expect(before).toContain(entry.key);
      const store = new ConfigStore(join(mnt, 'config'));
      await store.update('default', (p) => (p.city = 'la'));
      return { mnt, journalFile, before };
    });

    function fillDisk(mnt: string) {
      const fd = fs.openSync(join(mnt, 'filler'), 'w');
      try {
        for (const size of [16384, 4096, 512, 64, 1]) {
          try {
            for (;;) fs.writeSync(fd, Buffer.alloc(size));
          } catch {
            // full at this granularity; try smaller pieces
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    }

    onTmpfs('ENOSPC: reserve exits 1 with one line naming the journal, sends no create, and the old journal is whole', async ({ sb, reserve, disk: { mnt, journalFile, before } }) => {
      fillDisk(mnt);
      const r = await reserve({ CARRENTAL_STATE_DIR: join(mnt, 'state') });
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines.filter((l) => l.startsWith('error: '))).toEqual([`error: cannot write the idempotency journal ${journalFile} (ENOSPC)`]);
      expect(r.stderr).toContain('hint: nothing was sent');
      expect(r.stdout).toBe('');
      expect(await requests(sb, 'createReservation')).toEqual([]);
      expect(readFileSync(journalFile, 'utf8')).toBe(before);
      expect(readdirSync(join(mnt, 'state'))).toEqual(['journal.json']);
    });

    onTmpfs('ENOSPC: config set exits 1 naming the config file and leaves it whole', async ({ home, disk: { mnt } }) => {
      const configFile = join(mnt, 'config', 'config.json');
      const config = readFileSync(configFile, 'utf8');
      fillDisk(mnt);
      const r = await runCommand(['config', 'set', 'base_url', 'https://api.example.test/v1'], { env: home.env({ CARRENTAL_CONFIG_DIR: join(mnt, 'config') }) });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error: cannot write the config file ${configFile} (ENOSPC); nothing was changed`);
      expect(readFileSync(configFile, 'utf8')).toBe(config);
      expect(readdirSync(join(mnt, 'config'))).toEqual(['config.json']);
    });

    onTmpfs('read-only: reserve exits 1 naming the journal and sends nothing; config set exits 1; both files whole', async ({ sb, home, reserve, disk: { mnt, journalFile, before } }) => {
      const configFile = join(mnt, 'config', 'config.json');
      const config = readFileSync(configFile, 'utf8');
      expect(spawnSync('mount', ['-o', 'remount,ro', mnt]).status).toBe(0);
      const r = await reserve({ CARRENTAL_STATE_DIR: join(mnt, 'state') });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`error: cannot (lock|write|create the directory of) the idempotency journal ${journalFile.replace(/[.]/g, '\\.')} \\(EROFS\\)`));
      expect(await requests(sb, 'createReservation')).toEqual([]);
      expect(readFileSync(journalFile, 'utf8')).toBe(before);

      const c = await runCommand(['config', 'set', 'city', 'miami'], { env: home.env({ CARRENTAL_CONFIG_DIR: join(mnt, 'config') }) });
      expect(c.code).toBe(1);
      expect(c.stderr).toContain(`cannot write the config file ${configFile} (EROFS)`);
      expect(readFileSync(configFile, 'utf8')).toBe(config);
    });
  });
});
