// A transaction's draft of one collection as the handlers use it, a plain object of records
// by key, over a store's own reads and writes of single records: both stores' drafts
// (json-document.ts, sqlite-store.ts) give the handlers one of these per collection, so a
// handler reads and writes only the records it touches.
export function recordView(load: (key: string) => unknown, set: (key: string, value: unknown) => void, keys: () => string[]): Record<string, unknown> {
  return new Proxy({} as Record<string, unknown>, {
    get: (_, k) => (typeof k === 'string' ? load(k) : undefined),
    set: (_, k, v) => {
      if (typeof k !== 'string') return false;
      set(k, v);
      return true;
    },
    deleteProperty: (_, k) => {
      if (typeof k !== 'string') return false;
      set(k, undefined);
      return true;
    },
    has: (_, k) => typeof k === 'string' && load(k) !== undefined,
    ownKeys: () => keys(),
    getOwnPropertyDescriptor: (_, k) => {
      const v = typeof k === 'string' ? load(k) : undefined;
      return v === undefined ? undefined : { value: v, writable: true, enumerable: true, configurable: true };
    },
  });
}
