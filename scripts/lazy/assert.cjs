'use strict';
// node:assert for undici (scripts/build.mjs, plugin lazy-builtins): undici asserts its
// invariants with a plain assert(value) call, all of which pass; node:assert itself (and the
// five internal modules it loads, ~1 ms) is loaded only for an assertion that fails or for
// anything else read off it.
let real;
const load = () => (real ??= process.getBuiltinModule('node:assert'));
function assert(value, ...rest) {
  if (!value) load()(value, ...rest);
}
module.exports = new Proxy(assert, {
  apply: (target, self, args) => target(...args),
  get: (target, key) => (key === 'prototype' ? target.prototype : load()[key]),
  has: (target, key) => key in load(),
});
