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
import '../src/text/json-text.js';
import '../src/cli/argv.js';
import '../src/cli/main.js';
