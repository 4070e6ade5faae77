import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files that cannot share the machine: a real terminal (tmux), a real browser, and the
 * tests that hold a clock to a bound (a deadline, a retry's backoff, a lock's wait, a
 * process killed inside a latency window). They run one file at a time, after the rest.
 */
const ALONE = [
  '**/*.tmux.test.ts',
  '**/*.tmux.e2e.test.ts',
  '**/*.browser.test.ts',
  '**/*.browser.e2e.test.ts',
  'test/booking/crash.e2e.test.ts',
  'test/booking/concurrency.e2e.test.ts',
  'test/completion/complete-command.test.ts',
  'test/packaging/test-deps.test.ts',
  'test/sandbox/faults.test.ts',
  'test/sandbox/store-index.test.ts',
  'test/store/lock.test.ts',
  'test/unit/client.test.ts',
  'test/unit/client-edges.test.ts',
];

export default defineConfig({
  define: { __CARRENTAL_VERSION__: JSON.stringify(process.env.npm_package_version ?? '0.0.0-test') },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // CARRENTAL_TEST_REPORT=path: also a JSON report, from which .ci/run prints its summary line
    reporters: process.env.CARRENTAL_TEST_REPORT ? ['default', ['json', { outputFile: process.env.CARRENTAL_TEST_REPORT }]] : ['default'],
    projects: [
      {
        extends: true,
        // vitest's default is one worker fewer than the cores: one, on two. Most files
        // wait on child processes and sockets, so one per core keeps both busy.
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ALONE, maxWorkers: availableParallelism(), sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
