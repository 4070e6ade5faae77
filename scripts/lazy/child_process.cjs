'use strict';
// node:child_process for commander (scripts/build.mjs, plugin lazy-builtins): commander
// requires it when it is loaded, for executable subcommands, which carrental has none of;
// node:child_process itself (with net's and dgram's parts it loads) is loaded only when
// something is read off it.
let real;
const load = () => (real ??= process.getBuiltinModule('node:child_process'));
module.exports = new Proxy(
  {},
  {
    get: (_target, key) => load()[key],
    has: (_target, key) => key in load(),
  },
);
