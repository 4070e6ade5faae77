// Mutation testing of the modules that keep bookings safe (see docs/development.md,
// "Mutation testing"). Not part of every-commit CI: a full run takes a while.
//   npm run test:mutation                      every module below
//   npm run test:mutation -- --mutate src/render/money.ts   one module
// Incremental: results are kept in test/mutation/incremental.json, so a rerun tests only
// mutants in code (or tests) that changed since.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/store/journal.ts',
    'src/store/journal-entry.ts',
    'src/store/atomic-file.ts',
    'src/store/lock.ts',
    'src/store/locked-file.ts',
    'src/store/regular-file.ts',
    'src/booking/journaled-write.ts',
    'src/booking/reservations.ts',
    'src/mcp/confirmation.ts',
    'src/store/install-secret.ts',
    'src/api/client.ts',
    'src/api/transport-errors.ts',
    'src/text/redact.ts',
    'src/text/sanitize.ts',
    'src/text/json-text.ts',
    'src/input/dates.ts',
    'src/render/dates.ts',
    'src/render/money.ts',
    // The MCP tool layer's write path only (its reads are tested end to end, against dist/):
    // the reserve and cancel_reservation tools, the consent rule they share, and callTool's
    // resume step. Line ranges: keep them on those functions when tools/booking.ts or
    // server.ts change (test/unit/mutation-config.test.ts checks them).
    'src/mcp/consent.ts',
    'src/mcp/tools/booking.ts:39-115',
    'src/mcp/tools/booking.ts:130-167',
    'src/mcp/server.ts:292-308',
  ],
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'test/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: '.tmp/mutation/report.json' },
  thresholds: { high: 95, low: 90, break: null },
  concurrency: 2,
  timeoutMS: 20000,
  tempDirName: '.tmp/stryker',
  // not copied into the sandbox: build output, reports and other runs' sandboxes
  ignorePatterns: ['.tmp', 'dist', 'coverage', '*.tgz'],
  cleanTempDir: 'always',
};
