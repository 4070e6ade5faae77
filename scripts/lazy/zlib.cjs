'use strict';
// node:zlib for undici (scripts/build.mjs, plugin lazy-builtins): undici's decompress
// interceptor takes its decoders off node:zlib when it is loaded; node:zlib itself (~1 ms)
// is loaded only when an answer comes compressed, or when anything else is read off it.
// zstd is in the node builds that bundle the library (22.15+, 23.8+), which name its version
// in process.versions: undici asks at load whether the decoder exists.
let real;
const load = () => (real ??= process.getBuiltinModule('node:zlib'));
const decoders = {
  createInflate: (...args) => load().createInflate(...args),
  createGunzip: (...args) => load().createGunzip(...args),
  createBrotliDecompress: (...args) => load().createBrotliDecompress(...args),
  createZstdDecompress: process.versions.zstd ? (...args) => load().createZstdDecompress(...args) : undefined,
};
module.exports = new Proxy(decoders, {
  get: (target, key) => (Object.hasOwn(target, key) ? target[key] : load()[key]),
  has: (target, key) => (Object.hasOwn(target, key) ? target[key] !== undefined : key in load()),
});
