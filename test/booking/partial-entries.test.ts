// Issue 29: `pending` survives journal entries of an older or partial shape (a request
// without options, without a car, a cancel without its uuid, no request at all): one clear
// warning per such entry, the others listed with their rerun line, never a TypeError.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestProblem, rerunCommand } from '../../src/commands/pending.js';
import { credentialFingerprint, type JournalEntry } from '../../src/store/journal.js';
import { runCommand, TestHome } from '../helpers/cli.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const now = new Date('2026-11-20T18:00:00Z');
let home: TestHome;
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const FULL = {
  car_alias: 'kia-soul-1',
  date_checkin: '2026-12-01T10:00',
  date_checkout: '2026-12-04T10:00',
  options: { protection_plan: 'standard', mileage_type: 'limited', delivery_type: 'pickup' },
  extras: ['gps'],
};

function entry(n: number, operation: 'createReservation' | 'cancelReservation', request: unknown): JournalEntry {
  const stamp = new Date(now.getTime() - 60_000).toISOString();
  return {
    id: String(n).repeat(64).slice(0, 64),
    key: `0000000${n}-1111-4222-8333-444444444444`,
    profile: 'default',
    baseUrl: 'https://api.example.test/v1',
    credential: credentialFingerprint(KEY),
    operation,
    target: `target-${n}`,
    request,
    createdAt: stamp,
    updatedAt: stamp,
    attempts: 1,
    state: 'pending',
  };
}

const ENTRIES = [
  entry(1, 'createReservation', FULL),
  entry(2, 'createReservation', { car_alias: 'kia-soul-1', date_checkin: '2026-12-01T10:00', date_checkout: '2026-12-04T10:00' }),
  entry(3, 'createReservation', { options: FULL.options }),
  entry(4, 'createReservation', null),
  entry(5, 'createReservation', { ...FULL, extras: 'gps' }),
  entry(6, 'cancelReservation', {}),
  entry(7, 'cancelReservation', { uuid: '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10' }),
  entry(8, 'createReservation', { ...FULL, options: { protection_plan: 'minimum' } }),
];

function writeJournal() {
  const dir = home.env().CARRENTAL_STATE_DIR!;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'journal.json'), JSON.stringify({ version: 2, entries: ENTRIES }));
  return join(dir, 'journal.json');
}

describe('pending with entries of older or partial shapes', () => {
  it('says what each bad entry lacks, once, and lists every entry', async () => {
    expect(ENTRIES.map(requestProblem)).toEqual([undefined, 'no options', 'no car_alias, date_checkin, date_checkout', 'no request recorded', 'extras that are not a list of names', 'no reservation uuid', undefined, 'no options']);
    expect(rerunCommand(ENTRIES[0])).toBe('carrental --base-url https://api.example.test/v1 reserve kia-soul-1 --from 2026-12-01T10:00 --to 2026-12-04T10:00 --protection standard --extra gps');
    expect(rerunCommand(ENTRIES[1])).toBeUndefined();

    const file = writeJournal();
    const before = readFileSync(file, 'utf8');
    for (const flags of [[], ['--json']]) {
      for (const tty of [false, true]) {
        const r = await runCommand([...flags, 'pending', 'list'], { env: home.env({ CARRENTAL_API_KEY: KEY, NO_COLOR: '1' }), now: () => now, tty });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).not.toMatch(/TypeError|Cannot read properties|unexpected failure/);
        // a terminal folds a warning to its width (120 columns here): each read as one line
        const unfolded = tty ? r.stderr.replace(/\n(?=.)(?!warning: )/g, ' ') : r.stderr;
        const warnings = unfolded.split('\n').filter((l) => l.includes('is of an older or partial shape'));
        expect(warnings).toHaveLength(6);
        expect(warnings[0]).toBe(`warning: journal entry ${'2'.repeat(12)} (reserve target-2) is of an older or partial shape (no options): it cannot be rerun from here; check \`carrental trips\` before running that command again`);
        if (flags.length) {
          const listed = JSON.parse(r.stdout) as Array<{ rerun: string | null }>;
          expect(listed).toHaveLength(8);
          expect(listed.map((e) => e.rerun === null)).toEqual([false, true, true, true, true, true, false, true]);
        } else {
          expect(r.stdout).toContain('reserve kia-soul-1 --from 2026-12-01T10:00 --to 2026-12-04T10:00 --protection standard --extra gps');
          expect(r.stdout).toContain('cancel 0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10');
        }
      }
    }
    // reading changed nothing
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
