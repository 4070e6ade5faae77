// Injected by scripts/build.mjs into every entry of the build: the modules the command tree
// shares with the commands. Reached from every entry, esbuild puts them in one chunk, so
// --help loads dist/cli.js and that chunk instead of a chunk per module.
import '../src/errors.js';
import '../src/text/redact.js';
import '../src/api/enums.js';
import '../src/api/operations.js';
import '../src/cli/context.js';
import '../src/cli/global-options.js';
import '../src/cli/commands.js';
import '../src/cli/help-text.js';
import '../src/cli/help-topics.js';
import '../src/text/sanitize.js';
import '../src/text/json-text.js';
import '../src/cli/argv.js';
import '../src/cli/main.js';
