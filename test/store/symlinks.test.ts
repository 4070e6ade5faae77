// Issue 29: a config or journal kept behind a symlink (dotfiles) is updated where the link
// points, atomically (the temp file beside the target), and the link stays a link.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomicSync, writeTarget } from '../../src/store/atomic-file.js';
import { ConfigStore } from '../../src/store/config.js';
import { credentialFingerprint, Journal } from '../../src/store/journal.js';
import { runCommand, TestHome } from '../helpers/cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-links-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomicSync through a symlink', () => {
  it('replaces the target whole, keeps the link, and leaves no temp file', () => {
    mkdirSync(join(dir, 'dotfiles'));
    writeFileSync(join(dir, 'dotfiles', 'real.json'), 'old');
    symlinkSync('dotfiles/real.json', join(dir, 'link.json'));
    writeFileAtomicSync(join(dir, 'link.json'), 'new');
    expect(lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'link.json'))).toBe('dotfiles/real.json');
    expect(readFileSync(join(dir, 'dotfiles', 'real.json'), 'utf8')).toBe('new');
    expect(statSync(join(dir, 'dotfiles', 'real.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['dotfiles', 'link.json']);
    expect(readdirSync(join(dir, 'dotfiles'))).toEqual(['real.json']);
  });

  it('follows a chain of links, creates the target of a dangling one, and refuses a loop', () => {
    symlinkSync(join(dir, 'b'), join(dir, 'a'));
    symlinkSync('c', join(dir, 'b'));
    expect(writeTarget(join(dir, 'a'))).toBe(join(dir, 'c'));
    writeFileAtomicSync(join(dir, 'a'), 'x');
    expect(readFileSync(join(dir, 'c'), 'utf8')).toBe('x');
    expect(lstatSync(join(dir, 'a')).isSymbolicLink() && lstatSync(join(dir, 'b')).isSymbolicLink()).toBe(true);
    symlinkSync('loop2', join(dir, 'loop1'));
    symlinkSync('loop1', join(dir, 'loop2'));
    expect(() => writeFileAtomicSync(join(dir, 'loop1'), 'x')).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });
});

describe('the config and the journal behind a symlink', () => {
  it('`config set` updates the file the link points to', async () => {
    const home = new TestHome();
    try {
      const env = home.env();
      const configDir = env.CARRENTAL_CONFIG_DIR!;
      mkdirSync(configDir, { recursive: true });
      mkdirSync(join(home.dir, 'dotfiles'));
      const target = join(home.dir, 'dotfiles', 'carrental.json');
      writeFileSync(target, JSON.stringify({ profiles: { default: { city: 'miami' } } }), { mode: 0o600 });
      symlinkSync(target, join(configDir, 'config.json'));
      const r = await runCommand(['config', 'set', 'city', 'la'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(lstatSync(join(configDir, 'config.json')).isSymbolicLink()).toBe(true);
      expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ profiles: { default: { city: 'la' } } });
      expect(new ConfigStore(configDir).profile('default')).toEqual({ city: 'la' });
    } finally {
      home.cleanup();
    }
  });

  it('a journal write lands in the target and the link stays', async () => {
    const target = join(dir, 'elsewhere.json');
    writeFileSync(target, JSON.stringify({ version: 2, entries: [] }));
    symlinkSync(target, join(dir, 'journal.json'));
    const journal = new Journal({ path: join(dir, 'journal.json') });
    const { entry } = await journal.begin({ profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint('svc_x_0123456789'), operation: 'cancelReservation', target: 'u', request: { uuid: 'u' } });
    expect(lstatSync(join(dir, 'journal.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8')).entries.map((e: { id: string }) => e.id)).toEqual([entry.id]);
    // a temp file a killed writer left beside the target is swept by the next write
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'journal.json'), readFileSync(target));
    rmSync(join(dir, 'journal.json'));
    symlinkSync(join(dir, 'real', 'journal.json'), join(dir, 'journal.json'));
    writeFileSync(join(dir, 'real', 'journal.json.4242.1.tmp'), '{"version":2,"entr');
    await journal.settle(entry.id);
    expect(readdirSync(join(dir, 'real'))).toEqual(['journal.json']);
  });
});
