#!/usr/bin/env node
// The launcher: the only place that sets the process's exit status. `--version` is
// answered before anything else loads, so it costs little more than starting node.
const argv = process.argv.slice(2);

// A reader that stops early (`carrental cars --all | head -3`) closes the pipe; that ends
// the output, it is not a crash worth a stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(argv);
}
