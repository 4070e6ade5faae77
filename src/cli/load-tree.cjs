// Copied by the build to dist/cli/load.cjs; bin/carrental.js loads the command tree
// (dist/cli/start.cjs) through it. With the V8 code cache the build wrote next to the tree
// (start.cjs.cache), node runs commander and the tree without compiling them again, which
// is about 3 ms of a 9 ms --help. Without a cache it is a plain require, and a cache from
// another node version is rejected by V8 and costs nothing but the read.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const FILE = path.join(__dirname, 'start.cjs');
const CACHE = `${FILE}.cache`;

// Code run by vm.Script cannot import() by itself on node 20 (that needs a flag), so the
// tree's command imports are resolved here, relative to the tree as a require would.
const importCommand = (specifier) => import(pathToFileURL(path.resolve(__dirname, specifier)).href);

/** Compiles and runs the tree; `script.createCachedData()` is what the build stores. */
function compile(cachedData) {
  const source = fs.readFileSync(FILE, 'utf8');
  const wrapper = `(function (exports, require, module, __filename, __dirname, __carrentalImport) {${source}\n})`;
  const script = new vm.Script(wrapper, { filename: FILE, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, FILE, __dirname, importCommand);
  return { script, exports: module.exports };
}

function load() {
  // node 22.1+ has its own compile cache (bin/carrental.js turns it on), which a vm.Script
  // would bypass
  if (typeof require('node:module').enableCompileCache === 'function') return require(FILE);
  let cachedData;
  try {
    cachedData = fs.readFileSync(CACHE);
  } catch {
    return require(FILE);
  }
  return compile(cachedData).exports;
}

module.exports = { load, compile, CACHE };
