// A test's own sandbox and temporary home, as vitest fixtures: for files whose tests run at
// once, each against a sandbox and a home of its own (closed and removed after the test).
import { test as base } from 'vitest';
import { type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { TestHome } from './home.js';

export function withSandboxAndHome(opts: SandboxOptions = {}) {
  return base
    .extend('sb', async ({}, { onCleanup }) => {
      const sb = await startSandbox({ quiet: true, ...opts });
      onCleanup(() => sb.close());
      return sb;
    })
    .extend('home', async ({}, { onCleanup }) => {
      const home = new TestHome();
      onCleanup(() => home.cleanup());
      return home;
    });
}
