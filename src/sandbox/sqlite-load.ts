// node:sqlite, when this Node has it (22.13+). On Node 22 loading it prints an
// ExperimentalWarning on every run; that one warning is filtered here, and nothing else.
// The few parts of its API the store uses are typed here: @types/node is the one of Node 20.

export interface SqliteStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
}

export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

export interface SqliteModule {
  DatabaseSync: new (path: string | URL, options?: { open?: boolean; readOnly?: boolean }) => SqliteDatabase;
}

let loaded: SqliteModule | null | undefined;

export function loadSqlite(): SqliteModule | null {
  if (loaded !== undefined) return loaded;
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type ?? (warning as Error).name;
    if (type === 'ExperimentalWarning' && /SQLite/.test(text)) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    loaded = (process.getBuiltinModule('node:sqlite') as SqliteModule | undefined) ?? null;
  } catch {
    loaded = null;
  } finally {
    process.emitWarning = emit;
  }
  return loaded;
}

let urls: boolean | undefined;

/**
 * Whether this Node's node:sqlite opens a `file:` URL (and so its parameters, such as
 * `immutable=1`): Node 22.13 takes a path only.
 */
export function sqliteOpensUrls(): boolean {
  if (urls !== undefined) return urls;
  const sqlite = loadSqlite();
  if (sqlite === null) return (urls = false);
  try {
    // a folder that does not exist, read-only: the open fails without creating anything
    new sqlite.DatabaseSync(new URL('file:///carrental-probe-no-such-folder/x.db?mode=ro'), { readOnly: true }).close();
    urls = true;
  } catch (err) {
    urls = (err as NodeJS.ErrnoException).code !== 'ERR_INVALID_ARG_TYPE';
  }
  return urls;
}
