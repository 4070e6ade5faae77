// The build's pass that writes esbuild's module wrappers as functions V8 compiles at load
// (scripts/eager-wrappers.mjs): what it changes, what it must leave alone, and that the code
// runs the same afterwards.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the build, without types
import { eagerWrappers } from '../../scripts/eager-wrappers.mjs';

describe('eagerWrappers', () => {
  it('writes a top-level wrapper call as a parenthesised function', () => {
    expect(eagerWrappers('var a=w((e,t)=>{t.exports=1});')).toBe('var a=w((function(e,t){t.exports=1}));');
    expect(eagerWrappers('var b=u(()=>{x=2}),c=u(e=>{e.y=3});')).toBe('var b=u((function(){x=2})),c=u((function(e){e.y=3}));');
  });

  it('leaves alone what a function would read differently, and what is not a wrapper', () => {
    const untouched = [
      'var a=w(()=>{this.x=1});',
      'var a=w(()=>{return arguments[0]});',
      'var a=w(()=>{return new.target});',
      'var a=w(async()=>{await 0});',
      'var a=w(()=>1);',
      'var a=w(()=>{},1);',
      'f(()=>{x=1});',
      'function g(){var a=w(()=>{x=1})}',
      'var a=w(()=>{class K extends this.B{}});',
      'var a=w(()=>{class K{[this.k]=1}});',
    ];
    for (const code of untouched) expect(eagerWrappers(code), code).toBe(code);
  });

  it("converts an arrow whose `this` or `arguments` belong to a function or class inside it", () => {
    expect(eagerWrappers('var a=w(()=>{function f(){return this.x+arguments[0]}class K{m(){return this}}});')).toBe(
      'var a=w((function(){function f(){return this.x+arguments[0]}class K{m(){return this}}}));',
    );
  });

  it('an esbuild bundle of CommonJS and lazily initialised modules runs the same after the pass', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eager-wrappers-'));
    try {
      writeFileSync(join(dir, 'dep.cjs'), 'let n = 0;\nmodule.exports = { next: () => ++n, self: this === module.exports };\n');
      writeFileSync(join(dir, 'lazy.ts'), 'export const made = [1, 2, 3].map((x) => x * 2);\n');
      writeFileSync(
        join(dir, 'entry.ts'),
        "const dep = require('./dep.cjs');\nexport async function run() {\n  const { made } = require('./lazy.ts');\n  return [dep.next(), dep.next(), dep.self, made];\n}\n",
      );
      const result = await build({ entryPoints: [join(dir, 'entry.ts')], bundle: true, format: 'esm', platform: 'node', minify: true, write: false });
      const code = result.outputFiles[0].text;
      const eager = eagerWrappers(code);
      // both wrappers (the CommonJS one and the lazy ES module's) became functions V8 compiles at load
      expect(eager.match(/\(\(function\(/g)).toHaveLength(2);
      expect(code).not.toContain('((function(');
      const results = [];
      for (const [name, text] of [['before.mjs', code], ['after.mjs', eager]]) {
        writeFileSync(join(dir, name), text);
        results.push(await (await import(pathToFileURL(join(dir, name)).href)).run());
      }
      expect(results[0]).toEqual([1, 2, true, [2, 4, 6]]);
      expect(results[1]).toEqual(results[0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
