#!/usr/bin/env node
// The launcher: the only place that sets the process's exit status. It is CommonJS
// (bin/package.json) so that `--version` is answered from package.json without starting
// node's ES-module loader; everything else loads the command tree (dist/cli.js), which
// imports a command's module only when that command runs (docs/performance.md, start-up).
'use strict';

const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  try {
    require('node:fs').writeSync(1, `${require('../package.json').version}\n`);
  } catch (err) {
    if (err.code !== 'EPIPE') throw err;
  }
} else {
  // Node 22.1+ keeps the code it compiled in its own cache (keyed by node's version and
  // flags, in the temp directory) and reuses it on the next run; Node 20 has no such cache.
  require('node:module').enableCompileCache?.();
  cli()
    .then((cli) => cli.main(argv))
    .then((code) => {
      process.exitCode = code;
    });
}

/** The command tree, an ES module. */
function cli() {
  return import('../dist/cli.js');
}
