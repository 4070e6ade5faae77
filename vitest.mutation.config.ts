// The in-process tests that mutation testing runs. The spawned end-to-end, browser, tmux
// and real-shell tests run the built dist/, which never contains Stryker's mutants, so
// they could only slow the run down without catching anything.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __CARRENTAL_VERSION__: JSON.stringify('0.0.0-mutation') },
  test: {
    include: ['test/unit/**/*.test.ts', 'test/store/**/*.test.ts', 'test/booking/**/*.test.ts', 'test/commands/**/*.test.ts', 'test/mcp/**/*.test.ts'],
    exclude: ['**/*.e2e.test.ts', '**/*.browser.test.ts', '**/*.tmux.test.ts', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
