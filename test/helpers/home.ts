// A temporary home for a test: config, state and data dirs of its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temp home for config, state and data; `env()` points carrental at it. */
export class TestHome {
  readonly dir = mkdtempSync(join(tmpdir(), 'carrental-test-'));
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: this.dir,
      CARRENTAL_CONFIG_DIR: join(this.dir, 'config'),
      CARRENTAL_STATE_DIR: join(this.dir, 'state'),
      CARRENTAL_DATA_DIR: join(this.dir, 'data'),
      CARRENTAL_SANDBOX_STATE: join(this.dir, 'data', 'sandbox-state.json'),
      // no fixed port in tests: parallel runs, and links that point at their own server
      CARRENTAL_SANDBOX_PORT: '0',
      ...extra,
    };
  }
  cleanup() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
