// The terminal styles (src/render/style.ts) are written by hand so that no command loads
// chalk; this holds them to chalk's output at the level carrental used (1: the basic 16
// colours), byte for byte, on the texts our renderers style: plain, empty, nested, several lines.
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { makeStyle, type Style } from '../../src/render/style.js';

const NAMES = ['bold', 'dim', 'red', 'green', 'yellow', 'cyan'] as const satisfies ReadonlyArray<keyof Style>;
const chalk = new Chalk({ level: 1 });
const TEXTS = [
  'ok',
  '',
  'two\nlines',
  'crlf\r\nline\n',
  '\n',
  `a ${chalk.red('red')} and ${chalk.bold('bold')} word`,
  `${chalk.dim('dim')}\n${chalk.green('green\nover two lines')}`,
  '\u00e9 \u{1f697} \u001b[0m reset',
];

describe('makeStyle', () => {
  it.each(NAMES)('%s with colour on writes what chalk writes', (name) => {
    const style = makeStyle(true);
    for (const text of TEXTS) expect(JSON.stringify(style[name](text)), JSON.stringify(text)).toBe(JSON.stringify(chalk[name](text)));
    // nested in each other, as the renderers do
    for (const outer of NAMES) expect(style[outer](`x ${style[name]('y\nz')} w`)).toBe(chalk[outer](`x ${chalk[name]('y\nz')} w`));
  });

  it('with colour off returns every text as it is', () => {
    const style = makeStyle(false);
    for (const name of NAMES) for (const text of TEXTS) expect(style[name](text)).toBe(text);
    expect(new Chalk({ level: 0 }).red('x')).toBe('x');
  });
});
