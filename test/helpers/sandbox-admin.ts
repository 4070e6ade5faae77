// A sandbox for command tests: fixed clock, quiet, and small helpers around its admin API
// (/__sandbox/...): the request log (to prove what was or was not sent), faults, config.
import { afterAll, afterEach, beforeAll, beforeEach, test as base } from 'vitest';
import { TestHome } from './cli.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/** Noon in Los Angeles, 15:00 in Miami. */
export const SANDBOX_NOW = new Date('2026-11-01T19:00:00Z');

export interface LoggedRequest {
  method: string;
  path: string;
  operation: string | null;
  status: number | null;
  credentials: 'none' | 'authorization' | 'x-api-key' | 'both';
  /** The Idempotency-Key header the request carried, if any. */
  idempotency_key?: string | null;
}

/**
 * The hooks most command tests share: one sandbox for the file, reset before each test,
 * and a fresh TestHome per test (removed after it). The callbacks hand them to the file.
 */
export function sandboxPerTest(onStart: (sb: TestSandbox) => void, onHome: (home: TestHome) => void, options?: SandboxOptions): void {
  let sb: TestSandbox;
  let home: TestHome;
  beforeAll(async () => {
    sb = await TestSandbox.start(options);
    onStart(sb);
  });
  afterAll(() => sb.close());
  beforeEach(async () => {
    home = new TestHome();
    onHome(home);
    await sb.reset();
  });
  afterEach(() => home.cleanup());
}

/**
 * The same as fixtures (test.extend): `sb`, one sandbox per file (started with these
 * options), and `home`, a fresh TestHome per test (removed after it), made after the
 * sandbox is reset.
 */
export function sandboxTest(options?: SandboxOptions) {
  return base
    .extend('sb', { scope: 'file' }, async ({}, { onCleanup }) => {
      const sb = await TestSandbox.start(options);
      onCleanup(() => sb.close());
      return sb;
    })
    .extend('home', { auto: true }, async ({ sb }, { onCleanup }) => {
      await sb.reset();
      const home = new TestHome();
      onCleanup(() => home.cleanup());
      return home;
    });
}

export class TestSandbox {
  private constructor(readonly sb: RunningSandbox) {}

  static async start(opts: SandboxOptions = {}): Promise<TestSandbox> {
    return new TestSandbox(await startSandbox({ now: () => SANDBOX_NOW, quiet: true, ...opts }));
  }

  get baseUrl() {
    return this.sb.baseUrl;
  }
  get keys() {
    return this.sb.keys;
  }

  async admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.sb.adminUrl + path, {
      method,
      // the admin endpoints refuse a state change without it (docs/sandbox.md)
    headers: body === undefined && method === 'GET' ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
    // admin answers are bare JSON, not enveloped
    return (await res.json()) as T;
  }

  /** A direct API call, to compare the CLI's output with what the API says. */
  async api<T = any>(path: string): Promise<T> {
    const res = await fetch(this.sb.baseUrl + path);
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    return ((await res.json()) as { data: T }).data;
  }

  async requests(): Promise<LoggedRequest[]> {
    return (await this.admin<{ requests: LoggedRequest[] }>('GET', '/requests')).requests;
  }

  async clearRequests(): Promise<void> {
    await this.admin('DELETE', '/requests');
  }

  async fault(spec: Record<string, unknown>): Promise<void> {
    await this.admin('POST', '/faults', spec);
  }

  async reset(): Promise<void> {
    await this.admin('DELETE', '/faults');
    await this.admin('POST', '/rate-limits/reset');
    await this.clearRequests();
  }

  close() {
    return this.sb.close();
  }
}
