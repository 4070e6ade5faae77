import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __CARRENTAL_VERSION__: JSON.stringify(process.env.npm_package_version ?? '0.0.0-test') },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
