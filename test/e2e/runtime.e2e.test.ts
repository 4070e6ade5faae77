// The built CLI as a process: the launcher sets the exit status, runs on the Node that runs
// the tests (the Node 22/24 matrix depends on it), and behaves in a pipe.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; engines: { node: string } };

describe('the built CLI', () => {
  it('--version prints the package version', async () => {
    const r = await runBin(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('runs on the Node that runs the tests, which the engines range allows', async () => {
    const stub = await StubServer.start(() => ({ json: { data: { cars: [stubCar('fiat-500-la-001')], total: 1, has_more: false } } }));
    const home = new TestHome();
    try {
      const r = await runBin(['--base-url', stub.baseUrl, 'cars'], { env: home.env() });
      expect(r.code).toBe(0);
      expect(stub.requests[0].headers['user-agent']).toBe(`carrental/${pkg.version} node/${process.versions.node}`);
    } finally {
      await stub.close();
      home.cleanup();
    }
    const [major, minor] = process.versions.node.split('.').map(Number);
    expect(pkg.engines.node).toBe('^20.19.0 || >=22.13.0');
    expect((major === 20 && minor >= 19) || (major === 22 && minor >= 13) || major > 22).toBe(true);
    // what the range stands on: every bundled file reaches builtins this way, and the launcher require()s ES modules
    expect(typeof process.getBuiltinModule).toBe('function');
  });

  it('with no command prints the overview and exits 0', async () => {
    const r = await runBin([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('carrental --sandbox cars');
  });

  it('a mistyped command exits 2 with a suggestion', async () => {
    const r = await runBin(['carz']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'carz'\n\(Did you mean .*cars/);
  });

  it("a command's API error is reported by the launcher with its exit code", async () => {
    // the start-up build and the command chunks each hold a copy of CliError
    const home = new TestHome();
    try {
      const r = await runBin(['--sandbox', 'car', 'no-such-car'], { env: home.env() });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/^error: .+ \(car_not_found, request req_\w+\)\n/);
      expect(r.stderr).not.toContain('unexpected failure');
    } finally {
      home.cleanup();
    }
  });

  it('a reader that closes the pipe early ends the output quietly', () => {
    // `true` exits before node has even started, so carrental writes into a closed pipe
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" --help | true`], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
