// Issue 29: the same `reserve` under six spellings of one base URL is one command for the
// journal, so the five reruns replay the first idempotency key: one reservation.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { canonicalJson, commandId, credentialFingerprint, Journal } from '../../src/store/journal.js';
import { FROM, TO, requests, reservations, test as bookingTest } from './sandbox.js';

/** `reserve` of the fixture's car for FROM..TO against the sandbox, under the given spelling of its base URL. */
const test = bookingTest.extend('reserve', async ({ alias, cli }) => (baseUrl: string) => cli(['--base-url', baseUrl, 'reserve', alias, '--from', FROM, '--to', TO, '-y']));

describe('one API, one identity', () => {
  test('six spellings of the base URL make one reservation', async ({ sb, alias, reserve }) => {
    const { port, pathname } = new URL(sb.baseUrl);
    const spellings = [
      `http://127.0.0.1:${port}${pathname}`,
      `HTTP://127.0.0.1:${port}${pathname}/`,
      `http://127.1:${port}${pathname}`,
      `http://localhost:${port}${pathname}`,
      `http://LOCALHOST:${port}${pathname}`,
      `http://127.0.0.1:${port}/x/..${pathname}//`,
    ];
    const uuids = new Set<string>();
    for (const spelling of spellings) {
      const r = await reserve(spelling);
      expect(r.code, `${spelling}: ${r.stderr}`).toBe(0);
      uuids.add(r.stdout.trim());
    }
    expect(uuids.size).toBe(1);
    expect(await reservations(sb, alias)).toHaveLength(1);
    const sent = await requests(sb, 'createReservation');
    expect(new Set(sent.map((q) => q.idempotency_key)).size).toBe(1);
    expect(sent.filter((q) => !q.replayed)).toHaveLength(1);
  });

  test('a command an older carrental journaled under the raw URL is still resumed with its key', async ({ sb, home, reserve }) => {
    // what the journal held before canonical identities: the id of the trimmed spelling
    const key = '11111111-2222-4333-8444-555555555555';
    const journalPath = join(home.dir, 'state', 'journal.json');
    const first = await reserve(sb.baseUrl);
    expect(first.code, first.stderr).toBe(0);
    const [made] = await new Journal({ path: journalPath }).list();
    // the same entry, as an older carrental wrote it: pending, under the id of the raw URL
    const oldId = createHash('sha256').update(canonicalJson({ baseUrl: sb.baseUrl, credential: made.credential, operation: made.operation, request: made.request })).digest('hex');
    expect(oldId).not.toBe(commandId({ baseUrl: sb.baseUrl, credential: credentialFingerprint(sb.keys.booking_write), operation: 'createReservation', request: made.request }));
    const { state: _s, doneAt: _d, result: _r, ...pending } = made as unknown as Record<string, unknown>;
    writeFileSync(journalPath, JSON.stringify({ version: 2, entries: [{ ...pending, id: oldId, key, state: 'pending' }] }));
    const again = await reserve(sb.baseUrl);
    expect(again.code, again.stderr).toBe(0);
    const sent = await requests(sb, 'createReservation');
    expect(sent[sent.length - 1].idempotency_key).toBe(key);
  });
});
