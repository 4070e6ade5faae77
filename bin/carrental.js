#!/usr/bin/env node
// The launcher: the only place that sets the process's exit status. It is CommonJS
// (bin/package.json), like dist/cli/start.cjs, the command tree it loads (from its V8 code
// cache, through dist/cli/load.cjs): --version, --help and usage errors are answered
// without node's ESM loader, without creating the stdio streams and without loading any
// command (see docs/development.md).
'use strict';

const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  try {
    require('node:fs').writeSync(1, `${require('../package.json').version}\n`);
  } catch (err) {
    if (err.code !== 'EPIPE') throw err;
  }
} else {
  // Node 22.1+ caches compiled code between runs; earlier versions go without
  require('node:module').enableCompileCache?.();
  require('../dist/cli/load.cjs')
    .load()
    .main(argv)
    .then((code) => {
      process.exitCode = code;
    });
}
