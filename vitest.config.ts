import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __CARRENTAL_VERSION__: JSON.stringify(process.env.npm_package_version ?? '0.0.0-test') },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // CARRENTAL_TEST_REPORT=path: also a JSON report, from which .ci/run prints its summary line
    reporters: process.env.CARRENTAL_TEST_REPORT ? ['default', ['json', { outputFile: process.env.CARRENTAL_TEST_REPORT }]] : ['default'],
  },
});
