// An Output over fake streams, for renderer unit tests.
import { PassThrough } from 'node:stream';
import type { Globals, InStream } from '../../src/session/context.js';
import { Output } from '../../src/render/output.js';
import { FakeOut } from './cli.js';

export function fakeOutput(opts: { tty?: boolean; json?: boolean; accessible?: boolean } = {}) {
  const stdout = new FakeOut(!!opts.tty);
  const stderr = new FakeOut(!!opts.tty);
  const globals: Globals = {
    profile: 'default',
    sandbox: false,
    json: !!opts.json,
    color: false,
    input: false,
    yes: false,
    debug: false,
    timeoutMs: 30_000,
    wide: false,
    pager: false,
    agent: false,
    accessible: !!opts.accessible,
  };
  const out = new Output({ io: { stdin: new PassThrough() as unknown as InStream, stdout, stderr }, globals });
  return { out, stdout: () => stdout.text(), stderr: () => stderr.text(), stderrStream: stderr };
}
