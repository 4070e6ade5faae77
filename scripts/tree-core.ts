// Injected by scripts/build.mjs into every entry of the build: the modules the command tree
// shares with the commands. Reached from every entry, esbuild puts them in one chunk, so
// --help loads dist/cli.js and that chunk instead of a chunk per module.
import '../src/errors.js';
import '../src/text/redact.js';
import '../src/api/enums.js';
import '../src/api/operations.js';
import '../src/session/context.js';
import '../src/cmdkit/global-options.js';
import '../src/cmdkit/command-specs.js';
import '../src/cli/help-text.js';
import '../src/cmdkit/help-topics.js';
import '../src/text/sanitize.js';
// how a message names a command for this user: Output (every command) and the error
// hints of the tree (hints.ts, confirm.ts) share it; 0.5 KB, so in the tree's chunk
import '../src/render/for-user.js';
import '../src/text/json-text.js';
import '../src/cli/argv.js';
import '../src/cli/main.js';
