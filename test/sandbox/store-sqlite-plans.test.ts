// What the embedded read commands (`cars`, `car`, `quote`, `trips`) ask the SQLite store,
// opening and closing included, must not grow with the state's history (issue 35: at most
// 10 ms more at 50,000 reservations than at 100). Every statement they run is recorded from
// node:sqlite itself, then SQLite's own EXPLAIN QUERY PLAN says how each finds its rows: none
// may scan a table that grows with history, list a whole collection, or read a car's past
// trips; no integrity or quick check runs on an ordinary open. Timings are bench/embedded-scale's.
// Node 22.13+ only (node:sqlite); .ci/extra runs every store-sqlite* file on 22.13 too.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SqliteDatabase, type SqliteModule, loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { FIXED_NOW, type Harness, availableCar, reserve, startHarness, tempDir, tripBody } from './harness.js';

const sqlite = loadSqlite();
/** Tables whose size is fixed, whatever the history: scanning them costs the same at any size. */
const FIXED_SIZE = ['meta', 'sqlite_master', 'sqlite_schema', 'rate_budget'];

type Proto = Record<string, (...args: unknown[]) => unknown>;

describe.skipIf(!sqlite)('the SQLite queries of the embedded read commands', () => {
  let dir: string;
  let cleanup: () => void;
  let h: Harness | undefined;
  const restore: (() => void)[] = [];
  /** Every SQL text run while recording: statements (prepared, then run) and exec() alike. */
  let ran: Set<string>;
  let recording = false;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    ran = new Set();
    const mod = process.getBuiltinModule('node:sqlite') as { StatementSync: { prototype: Proto }; DatabaseSync: { prototype: Proto } };
    const wrap = (proto: Proto, name: string, sqlOf: (self: unknown, args: unknown[]) => string) => {
      const original = proto[name];
      proto[name] = function (this: unknown, ...args: unknown[]) {
        if (recording) ran.add(sqlOf(this, args).replace(/\s+/g, ' ').trim());
        return original.apply(this, args);
      };
      restore.push(() => {
        proto[name] = original;
      });
    };
    for (const name of ['get', 'all', 'run', 'iterate']) wrap(mod.StatementSync.prototype, name, (self) => (self as { sourceSQL: string }).sourceSQL);
    wrap(mod.DatabaseSync.prototype, 'exec', (_, args) => String(args[0]));
  });
  afterEach(async () => {
    recording = false;
    while (restore.length > 0) restore.pop()?.();
    await h?.close();
    h = undefined;
    cleanup();
  });

  /** SQLite's plan of `sql` on the file: one line per table access. */
  const planOf = (db: SqliteDatabase, sql: string) =>
    db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all()
      .map((r) => String(r.detail));

  it('search by key or index only: no scan of a growing table, no whole collection, no car history, no integrity check on open', async () => {
    const statePath = join(dir, 'state.db');
    const FROM = '2026-04-14T10:00';
    const TO = '2026-04-17T10:00';
    h = await startHarness({ statePath, store: 'sqlite' });
    const car = await availableCar(h, FROM, TO);
    const key = h.sb.keys.booking_write;
    const uuid = await reserve(h, key, tripBody(car.car_alias, FROM, TO));
    expect((await h.admin('POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' })).status).toBe(200);
    await h.close();

    // what one embedded command does: open the existing state, answer, close
    recording = true;
    h = await startHarness({ statePath, store: 'sqlite' });
    const answers = [
      await h.call('GET', '/cars'),
      await h.call('GET', `/cars/${car.car_alias}`),
      await h.call('GET', '/cars?date_from=2026-05-14T10:00&date_to=2026-05-17T10:00'),
      await h.call('POST', '/reservation/quote', { body: tripBody(car.car_alias, '2026-05-14T10:00', '2026-05-17T10:00') }),
      await h.call('POST', '/reservation/quote', { key, body: tripBody(car.car_alias, '2026-05-14T10:00', '2026-05-17T10:00') }),
      await h.call('GET', '/my/trips', { key }),
      await h.call('GET', `/my/reservation/${uuid}`, { key }),
    ];
    await h.close();
    h = undefined;
    recording = false;
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);

    const observer = new (sqlite as SqliteModule).DatabaseSync(statePath, { readOnly: true });
    try {
      const statements = [...ran].filter((sql) => /^(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(sql));
      const pragmas = [...ran].filter((sql) => /^PRAGMA\b/i.test(sql));
      // a check of the whole file reads every page: it belongs to a server's start or a crash, not to every command
      expect(pragmas.filter((p) => /integrity_check|quick_check|foreign_key_check/i.test(p))).toEqual([]);
      const plans = Object.fromEntries(statements.map((sql) => [sql, planOf(observer, sql)]));
      const scans = Object.entries(plans).flatMap(([sql, lines]) =>
        lines.filter((l) => /^SCAN /.test(l) && !FIXED_SIZE.some((t) => new RegExp(`^SCAN ${t}\\b`).test(l))).map((l) => `${l}: ${sql}`),
      );
      expect(scans).toEqual([]);
      // the records by collection alone: every record of it, the history included
      const wholeCollections = Object.entries(plans).flatMap(([sql, lines]) => lines.filter((l) => /^SEARCH records USING .*\(collection=\?\)$/.test(l)).map((l) => `${l}: ${sql}`));
      expect(wholeCollections).toEqual([]);
      // a car's trips are searched from the day in question on, through the index by car and checkout
      const byCar = Object.entries(plans).filter(([sql]) => sql.includes("'$.car_id'"));
      expect(byCar.length).toBeGreaterThan(0);
      for (const [, lines] of byCar) expect(lines).toEqual(['SEARCH records USING INDEX reservations_by_car_checkout (<expr>=? AND <expr>>?)']);
    } finally {
      observer.close();
    }
  }, 60_000);
});
