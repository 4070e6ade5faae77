// The in-process tests that mutation testing runs. The spawned end-to-end, browser, tmux
// and real-shell tests run the built dist/, which never contains Stryker's mutants, so
// they could only slow the run down without catching anything.
//
// MUTATION_TESTS=<glob>,<glob> narrows the run to those test files, e.g. a module's own
// tests while working on it (the full in-process suite is the default).
import { defineConfig } from 'vitest/config';

const only = process.env.MUTATION_TESTS?.split(',').filter(Boolean);

export default defineConfig({
  define: { __CARRENTAL_VERSION__: JSON.stringify('0.0.0-mutation') },
  test: {
    include: only?.length ? only : ['test/unit/**/*.test.ts', 'test/store/**/*.test.ts', 'test/booking/**/*.test.ts', 'test/commands/**/*.test.ts', 'test/mcp/**/*.test.ts'],
    exclude: ['**/*.e2e.test.ts', '**/*.browser.test.ts', '**/*.tmux.test.ts', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
