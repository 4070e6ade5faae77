// src/api/zod.ts as every module of the build sees it (scripts/build.mjs, plugin
// zod-on-first-use): the same `z`, loaded the first time one of its members is read instead
// of when the importing module loads. zod's module bodies and its set-up cost ~4 ms of CPU
// on Node 22, which a command that builds no schema (`cars --json`, whose page has a plain
// check) never needs. `require`, because it is synchronous: esbuild turns it into a call of
// the module's initialiser, and the module exports only `z`, whose members are named
// imports, so zod stays tree-shaken. test/e2e/startup.e2e.test.ts checks both that
// `cars --json` never loads zod and that the commands that validate still do.
import type { z as Z } from '../src/api/zod.js';

let loaded: typeof Z | undefined;

export const z = new Proxy({} as typeof Z, {
  get: (_target, key) => Reflect.get((loaded ??= (require('../src/api/zod.ts') as { z: typeof Z }).z), key),
});
