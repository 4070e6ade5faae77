// A create is one state change on the Node 20 JSON store too: the reservation, its invoices
// and the idempotency record reach the file in one write or not at all. The store's file
// writer is wrapped so that a write holding the create's Idempotency-Key fails (as a full
// disk would); had the handler committed the reservation before recording the key, that
// earlier write would stay. store-sqlite-connection.test.ts checks the same on the database.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/sandbox/store.js';
import { FIXED_NOW, createOfFreeCar, newKey, tempDir } from './harness.js';

const failing = vi.hoisted(() => ({ marker: null as string | null }));
vi.mock('../../src/store/atomic-file.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/store/atomic-file.js')>();
  return {
    ...real,
    writeFileAtomicSync: (...args: Parameters<typeof real.writeFileAtomicSync>) => {
      if (failing.marker !== null && String(args[1]).includes(failing.marker)) {
        throw Object.assign(new Error('ENOSPC: no space left on device (injected)'), { code: 'ENOSPC' });
      }
      return real.writeFileAtomicSync(...args);
    },
  };
});

const now = () => FIXED_NOW;
const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';

describe('a create on the JSON store', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterEach(() => {
    failing.marker = null;
    cleanup();
  });

  it('keeps nothing when its write fails, and a retry with the same key creates it once', async () => {
    const statePath = join(dir, 'state.json');
    const sb = await startSandbox({ statePath, now, quiet: true, store: 'json', config: { maxActiveReservations: 100 } });
    /** The file as a fresh process would read it. */
    const onFile = async () => {
      const store = await openStore({ statePath, now, kind: 'json' });
      const s = store.read();
      const counts = { reservations: Object.keys(s.reservations).length, invoices: Object.keys(s.invoices).length, idempotency: Object.keys(s.idempotency).length };
      await store.close();
      return counts;
    };
    try {
      const create = await createOfFreeCar(sb, FROM, TO);
      const trips = async () => ((await fetch(`${sb.adminUrl}/reservations?customer=dana`).then((r) => r.json())) as any).uuids as string[];
      const before = await onFile();
      const tripsBefore = await trips();

      const key = newKey();
      failing.marker = key;
      const failed = await create(key);
      // a full disk is worded as one (503 sandbox_state_unavailable), never a 500
      expect(failed.status).toBe(503);
      expect(await failed.text()).toContain('the disk is full');
      expect(await onFile(), 'nothing of the failed create is on file').toEqual(before);
      expect(await trips(), 'nor in what the sandbox answers').toEqual(tripsBefore);

      failing.marker = null;
      const retried = await create(key);
      expect(retried.status).toBe(200);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      const after = await onFile();
      expect(after.reservations).toBe(before.reservations + 1);
      expect(after.invoices).toBeGreaterThan(before.invoices);
      expect(after.idempotency).toBe(before.idempotency + 1);
    } finally {
      await sb.close();
    }
  });
});
