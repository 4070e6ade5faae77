// Bundled in place of undici's lib/dispatcher/client-h2.js (scripts/build.mjs says why):
// carrental never asks undici for HTTP/2, so its client, and node:http2, never load.
'use strict';
module.exports = function connectH2() {
  throw new Error('carrental is built without HTTP/2 support (undici allowH2 must stay off)');
};
