import { statfsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/sequencer.js';

/**
 * Test files that cannot share the machine with the rest: those that hold a clock to a
 * bound (a deadline, a retry's backoff, a lock's wait, a process killed inside a latency
 * window, a spinner's delay, a pause after a key, a page served for a grace period). They
 * run after the rest, ALONE_LANES at a time, longest first (most of their time is a wait on
 * the clock they hold, a child process or a page: three of them kept two cores about 70%
 * busy), in one project (a second project in the lanes waited for the first's workers to
 * end). A terminal (tmux) or browser test that only waits for what it reads, with a
 * generous deadline, shares the machine like any spawned test, and so does
 * concurrency.e2e, whose races are settled by the journal's lock and its kills by a pause
 * hook, not by a clock (it passed four times at a load of 10).
 */
const ALONE = [
  'test/commands/spinner-modes.tmux.e2e.test.ts',
  'test/commands/pager.tmux.e2e.test.ts',
  'test/booking/pay-link-served.browser.test.ts',
  'test/booking/crash.e2e.test.ts',
  'test/completion/complete-command.test.ts',
  'test/packaging/test-deps.test.ts',
  'test/sandbox/faults.test.ts',
  'test/store/lock.test.ts',
  'test/unit/client.test.ts',
  'test/unit/client-edges.test.ts',
];

/**
 * In-process files that mock a module (vi.mock) or count what a module did since it was
 * loaded (lazySchemaStats): each runs in a fresh worker, with a fresh module registry. A
 * file that sets process.env, fakes a timer or spies on Date.now and undoes it before it
 * ends (store-json-bound, http-sessions, complete-command) is pooled: each fresh worker is a
 * Node and vitest started again, in the tail of the run, and in the alone lanes a file of
 * another project waited for every worker of the first to end (a lane idle 3-4 s).
 */
const OWN_MODULES = [
  'test/sandbox/handler-transaction-json.test.ts',
  'test/store/atomic-file-edges.test.ts',
  'test/unit/journal-durability.test.ts',
  'test/unit/journal-lock-errors.test.ts',
  'test/unit/lazy-schema.test.ts',
];

/**
 * The tests' temporary homes, state files and journals in memory (tmpfs) when the machine
 * has one with room, unless TMPDIR says where: every write of a sandbox or a journal is
 * fsynced, and on a disk each fsync cost the kernel more than most commands' own work (the
 * suite's system time was a third of its CPU). Nothing here cuts the power: a process killed
 * mid-write finds the same bytes on tmpfs as on a disk, and the tests of fsync itself count
 * the calls.
 */
function memoryTmp(): string | undefined {
  try {
    const fs = statfsSync('/dev/shm');
    return fs.type === 0x01021994 && fs.bavail * fs.bsize >= 4 * 1024 ** 3 ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}
if (!process.env.TMPDIR) {
  const dir = memoryTmp();
  if (dir) process.env.TMPDIR = dir;
}

/**
 * One worker more than the cores for the files that share the machine: they wait on child
 * processes, sockets, terminals and a browser for much of their time, and a third worker
 * fills those waits (an idle two-core machine: 224 s with two, 207 s with three, 216 s with
 * four, whose extra load also failed a load-bound test).
 */
const POOLED_WORKERS = availableParallelism() + 1;

/**
 * The files of ALONE at once. Three on two cores: the alone phase took 20.2-20.5 s with two
 * lanes and the isolated file in a group after them, 16.4-17.7 s with three in one group
 * (Node 20, an otherwise idle machine), every file passing.
 */
const ALONE_LANES = 3;

export default defineConfig({
  define: { __CARRENTAL_VERSION__: JSON.stringify(process.env.npm_package_version ?? '0.0.0-test') },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    // CARRENTAL_TEST_REPORT=path: also a JSON report, from which .ci/run prints its summary line
    reporters: process.env.CARRENTAL_TEST_REPORT ? ['default', ['json', { outputFile: process.env.CARRENTAL_TEST_REPORT }]] : ['default'],
    projects: [
      {
        extends: true,
        // vitest's default is one worker fewer than the cores: one, on two. Most files
        // wait on child processes and sockets, so one per core keeps both busy.
        test: { name: 'isolated', include: OWN_MODULES, maxWorkers: POOLED_WORKERS, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // The rest (commands on fake terminals against a loopback sandbox, the units, and
        // the files that run the built CLI, a shell, tmux or a browser): one worker runs
        // many of them, loading src/ and the helpers once instead of once per file (the
        // import of src/cli and src/sandbox was most of a small file's time; a fresh worker
        // is a Node and vitest's runner started again). Each file still makes its own
        // sandbox, home and children, and leaves the process as it found it; vitest
        // restores spies between files.
        test: {
          name: 'pooled',
          include: ['test/**/*.test.ts'],
          exclude: [...ALONE, ...OWN_MODULES],
          isolate: false,
          maxWorkers: POOLED_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // lanes of one file at a time, each a worker of its own (a worker started per file was that much longer a tail)
        test: { name: 'alone', include: ALONE, isolate: false, maxWorkers: ALONE_LANES, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
