// Injected by scripts/build.mjs into the module of every command that talks to the API
// (all but `help` and `completion`): what those commands share. Reached from all of them
// alike (and from the sandbox's lazily loaded parts, which run only inside such a
// command), esbuild puts these modules in one chunk, so `cars --json` reads the command
// tree, commander, its own module and chunk, this chunk and one small chunk it shares
// with code that does not load it: 6 files instead of 15 (each ES module is a file
// resolved, read, compiled and linked: ~0.4 ms on Node 20).
import '../src/session/services.js';
import '../src/api/payload.js';
import '../src/api/page-walk.js';
import '../src/input/parse.js';
import '../src/cmdkit/trip-dates.js';
import '../src/input/dates.js';
import '../src/render/dates.js';
import '../src/render/money.js';
import '../src/render/jq.js';
import '../src/store/atomic-file.js';
