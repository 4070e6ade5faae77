// The brief's own commands, spawned from dist/ with only HOME and the XDG folders set (the
// real default paths, no CARRENTAL_* folder variable): the first `--sandbox` command run
// with --dry-run creates nothing anywhere under that HOME (issue 35).
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';

const home = mkdtempSync(join(tmpdir(), 'carrental-dry-e2e-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  XDG_CACHE_HOME: join(home, '.cache'),
  CARRENTAL_SANDBOX_PORT: '0',
};

function snapshot(dir: string): string[] {
  const lines = [`${dir} dir ${statSync(dir).mtimeMs}`];
  for (const name of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    lines.push(st.isDirectory() ? `${p} dir ${st.mtimeMs}` : `${p} file ${st.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
  }
  return lines;
}

describe('--sandbox --dry-run as the first command (spawned)', () => {
  it('reserve and cancel create no file or folder under HOME', async () => {
    const before = snapshot(home);
    const reserve = await runBin(['--sandbox', 'reserve', 'toyota-camry-1001', '--from', 'tomorrow 10:00', '--days', '3', '--dry-run'], { env });
    expect(reserve.code, reserve.stderr).toBe(0);
    expect(reserve.stdout).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/v1\/my\/reservation$/m);
    const cancel = await runBin(['--sandbox', 'cancel', '7f3c2a8e-0000-4000-8000-000000000001', '--dry-run'], { env });
    expect(cancel.code, cancel.stderr).toBe(4);
    expect(snapshot(home)).toEqual(before);
  });
});
