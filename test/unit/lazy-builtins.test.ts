// The build gives undici stand-ins for node:assert and node:zlib, commander one for
// node:child_process (scripts/lazy/, plugin lazy-builtins of scripts/build.mjs), that load
// the builtin on first real use, and env-paths the process object for node:process; here
// they are held to the builtins they stand for. That the built CLI does not load them for a plain
// answer is test/e2e/startup.e2e.test.ts.
import realAssert from 'node:assert';
import * as realChildProcess from 'node:child_process';
import { createRequire } from 'node:module';
import * as realZlib from 'node:zlib';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const assert = require('../../scripts/lazy/assert.cjs') as typeof realAssert;
const zlib = require('../../scripts/lazy/zlib.cjs') as typeof realZlib;
const childProcess = require('../../scripts/lazy/child_process.cjs') as typeof realChildProcess;

describe('the node:assert stand-in', () => {
  it('passes a truthy value and throws node\'s AssertionError, with the message, for a falsy one', () => {
    expect(typeof assert).toBe('function');
    for (const value of [true, 1, 'x', {}]) expect(assert(value)).toBeUndefined();
    expect(() => assert(0, 'the queue is empty')).toThrow(realAssert.AssertionError);
    expect(() => assert(0, 'the queue is empty')).toThrow(/^the queue is empty$/);
    for (const value of [false, 0, '', null, undefined]) expect(() => assert(value)).toThrow(realAssert.AssertionError);
  });

  it('forwards everything else to node:assert', () => {
    expect(assert.AssertionError).toBe(realAssert.AssertionError);
    expect(assert.strictEqual).toBe(realAssert.strictEqual);
    expect(() => assert.strictEqual(1, 2)).toThrow(realAssert.AssertionError);
    expect(() => assert.ok(false)).toThrow(realAssert.AssertionError);
    expect('deepStrictEqual' in assert).toBe(true);
  });
});

describe('the node:zlib stand-in', () => {
  const text = JSON.stringify({ data: Array.from({ length: 50 }, (_, i) => ({ i })) });
  const decode = (stream: NodeJS.ReadWriteStream, bytes: Buffer) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))).on('error', reject);
      stream.end(bytes);
    });

  it('its decoders decode what node:zlib encodes', async () => {
    expect(await decode(zlib.createGunzip(), realZlib.gzipSync(text))).toBe(text);
    expect(await decode(zlib.createInflate(), realZlib.deflateSync(text))).toBe(text);
    expect(await decode(zlib.createBrotliDecompress(), realZlib.brotliCompressSync(text))).toBe(text);
  });

  it('has a zstd decoder exactly when this node has one', async () => {
    const real = realZlib as unknown as Record<string, unknown>;
    const lazy = zlib as unknown as Record<string, unknown>;
    expect(typeof lazy.createZstdDecompress).toBe(typeof real.createZstdDecompress);
    expect('createZstdDecompress' in zlib).toBe('createZstdDecompress' in realZlib);
    if (typeof real.zstdCompressSync === 'function') {
      const encode = real.zstdCompressSync as (t: string) => Buffer;
      expect(await decode((lazy.createZstdDecompress as () => NodeJS.ReadWriteStream)(), encode(text))).toBe(text);
    }
  });

  it('forwards everything else to node:zlib', () => {
    expect(zlib.constants).toBe(realZlib.constants);
    expect(zlib.gunzipSync(realZlib.gzipSync('x')).toString()).toBe('x');
  });
});

describe('the node:child_process stand-in', () => {
  it('is node:child_process once anything is read off it', async () => {
    expect(childProcess.spawn).toBe(realChildProcess.spawn);
    expect('execFile' in childProcess).toBe(true);
    const child = childProcess.spawn(process.execPath, ['-e', 'process.stdout.write("ran")'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(out).toBe('ran');
  });
});

describe('the node:process stand-in', () => {
  it('is the process object', () => {
    expect(require('../../scripts/lazy/process.cjs')).toBe(process);
  });
});
