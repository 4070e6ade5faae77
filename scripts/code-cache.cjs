// Run by scripts/build.mjs: writes dist/cli/start.cjs.cache, the V8 code cache of the
// command tree, after running the tree on the start-up paths (help, a mistyped command, a
// usage error) so the functions they call are compiled into it. Output is discarded by
// the caller; the config, state and data directories point at a throw-away directory.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carrental-code-cache-'));
Object.assign(process.env, { CARRENTAL_CONFIG_DIR: dir, CARRENTAL_STATE_DIR: dir, CARRENTAL_DATA_DIR: dir });

const { compile, CACHE } = require('../dist/cli/load.cjs');

(async () => {
  const { script, exports } = compile(undefined);
  for (const argv of [['--help'], ['cars', '--help'], ['help', 'quote'], ['carz'], ['cars', '--limit', '0'], []]) {
    await exports.main(argv);
  }
  fs.writeFileSync(CACHE, script.createCachedData());
  fs.rmSync(dir, { recursive: true, force: true });
  process.exitCode = 0;
})();
