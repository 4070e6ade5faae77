// The build: one esbuild run over the CLI, ES modules with code splitting, then the
// licences of what it bundled. What it writes:
// - dist/cli.js: src/cli/main.ts, the entry the launcher (bin/carrental.js) loads;
// - dist/commands/<name>.js: one entry per command module, which the command tree imports
//   (`import('../commands/cars.js')`) only when that command runs;
// - dist/chunks/: the code entries share, one copy of each module (so `instanceof CliError`
//   holds between the tree and the commands); commander is a chunk of its own, loaded for a
//   command or a usage error;
// - THIRD-PARTY-NOTICES, from esbuild's metafile (scripts/notices.mjs), and the metafile in
//   .tmp/ for test/e2e/startup.e2e.test.ts.
// Two start-up measures shape the chunks (scripts/tree-core.ts, scripts/command-core.ts),
// one plugin leaves undici's HTTP/2 client out, one gives undici and commander builtins
// that load on first use (scripts/lazy/), one loads zod on first use
// (scripts/zod-on-first-use.ts), and one pass over the output makes V8 compile the module
// wrappers at load (scripts/eager-wrappers.mjs);
// docs/performance.md ("What start-up costs") says what each saves. The output is plain
// JavaScript for every Node of the engines range, the same from every build.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { eagerWrappers } from './eager-wrappers.mjs';
import { writeNotices } from './notices.mjs';

const source = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** The command modules, as src/cli/commands.ts names them in its import() calls. */
const commands = [...readFileSync(source('src/cli/commands.ts'), 'utf8').matchAll(/import\('\.\.\/commands\/([\w-]+)\.js'\)/g)].map(([, name]) => name);

/**
 * The modules of the commands that talk to the API (all but `help` and `completion`), and
 * the sandbox's lazily loaded parts (they run only inside such a command), import
 * scripts/command-core.ts first: what they share then lands in one chunk, instead of a
 * chunk for each subset of commands that happens to share a module.
 */
const commandCoreImporters = new Set(
  [
    ...commands.filter((name) => name !== 'help' && name !== 'completion').map((name) => `src/commands/${name}.ts`),
    ...['index', 'admin', 'pages', 'openapi'].map((name) => `src/sandbox/${name}.ts`),
    // --json FIELDS / --jq, loaded by the tree before such a command runs
    'src/cli/json-output.ts',
    // loaded lazily, but only inside a command that has loaded the core (doctor --contract,
    // the MCP server over HTTP, the embedded sandbox's start and its reset), and sharing
    // modules with it (the journal, the paths, the tables): without the import each such
    // module became a chunk of its own that `cars --json` read too
    'src/cmdkit/doctor-contract.ts',
    'src/mcp/http.ts',
    'src/session/embedded-sandbox.ts',
    // the tables: Output renders them in every command; the tree loads the module itself
    // only to fold an error's text on a terminal
    'src/render/table.ts',
  ].map(source),
);
const commandCore = {
  name: 'command-core',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) =>
      commandCoreImporters.has(args.path) ? { contents: `import '../../scripts/command-core.ts';\n${readFileSync(args.path, 'utf8')}`, loader: 'ts' } : undefined,
    );
  },
};

/**
 * undici's HTTP/2 client (lib/dispatcher/client-h2.js) loads node:http2, and with it tls
 * and fs/promises: ~17 ms of CPU of every command that sends a request (Node 22). carrental
 * never enables HTTP/2 (undici's allowH2 stays off), so the build puts a stub in its place
 * that throws if it is ever called. test/unit/undici-pin.test.ts pins the undici version
 * this was checked on.
 */
const noHttp2Client = {
  name: 'no-http2-client',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer) ? { path: source('scripts/undici-no-h2.cjs') } : undefined,
    );
  },
};

/**
 * Builtins bundled packages require when they are loaded but need only later, if ever:
 * undici's node:assert (for assertions that never fail) and node:zlib (for decoders only a
 * compressed answer needs), commander's node:child_process (for executable subcommands,
 * which carrental has none of). The build gives those packages a stand-in of ours for each
 * (scripts/lazy/<name>.cjs), which loads the builtin on first real use: ~2.5 ms of every
 * command that sends a request (Node 22). env-paths gets the process object for its ES
 * import of node:process, whose module namespace node would build by reading every getter
 * of process. test/unit/lazy-builtins.test.ts holds the
 * stand-ins to the builtins; test/e2e/startup.e2e.test.ts checks what `cars --json` loads.
 */
const LAZY_BUILTINS = { 'node:assert': 'undici', 'node:zlib': 'undici', 'node:child_process': 'commander', 'node:process': 'env-paths' };
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:(assert|zlib|child_process|process)$/ }, (args) => {
      // the package whose file asks: the directory under node_modules/ that holds it
      const from = /[\\/]node_modules[\\/]([^\\/]+)[\\/]/.exec(args.importer)?.[1];
      return from === LAZY_BUILTINS[args.path] ? { path: source(`scripts/lazy/${args.path.slice('node:'.length)}.cjs`) } : undefined;
    });
  },
};

/**
 * zod is loaded when a schema is first built, not when the client loads: running zod's
 * module bodies and its set-up cost ~4 ms of `cars --json` on Node 22, which checks its page
 * without zod. Every module but one gets scripts/zod-on-first-use.ts in place of
 * src/api/zod.ts (the module every other takes zod from); the one is that file, which
 * require()s src/api/zod.ts on first use.
 */
const ZOD_MODULE = source('src/api/zod.ts');
const ZOD_ON_FIRST_USE = source('scripts/zod-on-first-use.ts');
const zodOnFirstUse = {
  name: 'zod-on-first-use',
  setup(b) {
    b.onResolve({ filter: /(^|\/)zod\.js$/ }, (args) =>
      args.importer !== ZOD_ON_FIRST_USE && resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts') === ZOD_MODULE ? { path: ZOD_ON_FIRST_USE } : undefined,
    );
  },
};

/**
 * The MCP SDK's root entry (@modelcontextprotocol/server) re-exports its inner modules and
 * defines its HTTP serving itself (the Streamable HTTP transport, createMcpHandler). esbuild
 * splits by module, so a stdio server taking McpServer from the root would load the HTTP
 * serving too. Only src/mcp/http.ts (loaded for `mcp --http` alone) takes the root itself;
 * every other module gets a stand-in re-exporting just what the root re-exports from the
 * inner modules (a name the root defines is then a build error, not a silent load).
 * test/mcp/bundle.e2e.test.ts checks what the stdio server loads.
 */
const MCP_HTTP_MODULE = source('src/mcp/http.ts');
const mcpSdkWithoutHttp = {
  name: 'mcp-sdk-without-http',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/server$/ }, (args) =>
      args.importer === MCP_HTTP_MODULE || args.namespace === 'mcp-sdk-without-http' ? undefined : { path: 'sdk', namespace: 'mcp-sdk-without-http' },
    );
    b.onLoad({ filter: /.*/, namespace: 'mcp-sdk-without-http' }, () => {
      const index = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server'));
      const text = readFileSync(index, 'utf8');
      // what the root imports from its inner modules: local name -> [module, name there]
      const imported = new Map();
      for (const [, names, from] of text.matchAll(/^import \{([^}]*)\} from "(\.\/[^"]+)";$/gm)) {
        for (const spec of names.split(',').map((n) => n.trim()).filter(Boolean)) {
          const [name, local = name] = spec.split(/\s+as\s+/);
          imported.set(local, [from, name]);
        }
      }
      const exported = /^export \{([^}]*)\};$/m.exec(text)?.[1] ?? '';
      const lines = [];
      for (const spec of exported.split(',').map((n) => n.trim()).filter(Boolean)) {
        const [local, name = local] = spec.split(/\s+as\s+/);
        const from = imported.get(local);
        if (from) lines.push(`export { ${from[1]} as ${name} } from ${JSON.stringify(from[0])};`);
      }
      return { contents: lines.join('\n'), resolveDir: dirname(index), loader: 'js' };
    });
  },
};

const pkg = JSON.parse(readFileSync(source('package.json'), 'utf8'));
rmSync(source('dist'), { recursive: true, force: true });

const result = await build({
  entryPoints: { cli: 'src/cli/main.ts', ...Object.fromEntries(commands.map((name) => [`commands/${name}`, `src/commands/${name}.ts`])) },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minify: true,
  metafile: true,
  // written below, once each module wrapper is one V8 compiles at load (scripts/eager-wrappers.mjs)
  write: false,
  chunkNames: 'chunks/[name]-[hash]',
  // the licences go to THIRD-PARTY-NOTICES in full instead
  legalComments: 'none',
  // Bundled CommonJS packages (cli-table3, proper-lockfile, ...) call require() for node's
  // builtins, which an ES module does not have: the banner gives every file one, made on
  // its first call (most files never call it). __filename and __dirname become import.meta's.
  banner: { js: "const require = (id) => (require.made ??= process.getBuiltinModule('node:module').createRequire(import.meta.url))(id);" },
  define: { __CARRENTAL_VERSION__: JSON.stringify(pkg.version), __filename: 'import.meta.filename', __dirname: 'import.meta.dirname' },
  // the modules the command tree shares with the commands, in one chunk (scripts/tree-core.ts)
  inject: ['scripts/tree-core.ts'],
  plugins: [commandCore, noHttp2Client, lazyBuiltins, zodOnFirstUse, mcpSdkWithoutHttp],
  logLevel: 'warning',
});

for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, eagerWrappers(file.text, file.path));
}

mkdirSync(source('.tmp'), { recursive: true });
writeFileSync(source('.tmp/metafile.json'), JSON.stringify(result.metafile));
writeNotices(result.metafile, 'THIRD-PARTY-NOTICES');
