// A start-up trick (docs/performance.md, "What start-up costs"): the API's zod schemas are
// built on first use instead of at import. Building all of them costs ~6 ms of CPU on every
// command that loads src/api/schemas.ts, while a command uses a handful (`cars --json`
// builds only Car). The schemas stay described once, where they are: `lazy(() => z.…)`
// hands out a stand-in that builds the schema the first time anything reads it, and then
// forwards every read to it, so callers (`S.Car.safeParse`, `z.optional(S.Car)`,
// `Object.keys(S.Car.shape)`) cannot tell the difference. test/unit/lazy-schema.test.ts pins it.
//
// A registry is keyed by the object it is given, and callers hold the stand-in: metadata
// goes on the stand-in (`z.globalRegistry.add(standIn, …)`, as Uri and PhotoLink do when
// they are built), never on the real schema through `.register` or `.meta`.

/** How many lazily described schemas have been built so far (for the test that pins this). */
export const lazySchemaStats = { built: 0 };

export function lazy<T extends object>(build: () => T): T {
  let real: T | undefined;
  const target = (): T => {
    if (real === undefined) {
      real = build();
      lazySchemaStats.built++;
    }
    return real;
  };
  return new Proxy({} as T, {
    get: (_t, key) => Reflect.get(target(), key),
    has: (_t, key) => Reflect.has(target(), key),
    set: (_t, key, value) => Reflect.set(target(), key, value),
    ownKeys: () => Reflect.ownKeys(target()),
    // reported configurable: the stand-in's own (empty) target must stay consistent with it
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(target(), key);
      return d && { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}
