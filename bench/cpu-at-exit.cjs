// Preloaded by `bench/startup --cpu` into every measured process: at exit, appends the
// process's CPU time (user + system, all its threads, since it started) to the file named
// by CARRENTAL_BENCH_CPU_LOG. CPU time is what a busy machine distorts least: waiting for
// a core adds to a run's wall time but not to its CPU time.
'use strict';
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  require('node:fs').appendFileSync(process.env.CARRENTAL_BENCH_CPU_LOG, `${(user + system) / 1000}\n`);
});
