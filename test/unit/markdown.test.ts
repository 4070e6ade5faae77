// The manual as terminal text (`carrental help <topic>`) and GitHub's heading anchors, which
// the help topics and the link test rely on.
import { describe, expect, it } from 'vitest';
import { headings, renderMarkdown, section, slugify } from '../../src/render/markdown.js';

describe('slugify: the anchors GitHub gives headings', () => {
  it.each([
    ['Exit codes', 'exit-codes'],
    ['The journal: why a rerun is always safe', 'the-journal-why-a-rerun-is-always-safe'],
    ['`carrental pending [list|clear]`', 'carrental-pending-listclear'],
    ['Output and formatting: `--json`, fields and `--jq`', 'output-and-formatting---json-fields-and---jq'],
    ['Decisions where the spec says "not shown"', 'decisions-where-the-spec-says-not-shown'],
    ['`cars --all --json` over 5,000 cars (`bench/cars-all`, 25 pages of 200, 5 runs each)', 'cars---all---json-over-5000-cars-benchcars-all-25-pages-of-200-5-runs-each'],
    ['profile, verification, cards', 'profile-verification-cards'],
    ['[A link](x.md) and **bold**', 'a-link-and-bold'],
  ])('%s -> %s', (heading, slug) => {
    expect(slugify(heading)).toBe(slug);
  });

  it('numbers repeated headings as GitHub does, and ignores # lines in code blocks', () => {
    const md = ['# Title', '## Tests', '```sh', '# not a heading', '```', '## Tests', '~~~', '## nor this', '~~~', '### Tests'].join('\n');
    expect(headings(md).map((h) => [h.level, h.slug])).toEqual([
      [1, 'title'],
      [2, 'tests'],
      [2, 'tests-1'],
      [3, 'tests-2'],
    ]);
  });
});

describe('section', () => {
  const md = ['# Page', 'intro', '## A', 'a text', '### A.1', 'a1 text', '```', '## code, not a heading', '```', '## B', 'b text'].join('\n');

  it('runs from its heading to the next heading of its level or above, subsections included', () => {
    expect(section(md, 'a')).toBe(['## A', 'a text', '### A.1', 'a1 text', '```', '## code, not a heading', '```'].join('\n'));
    expect(section(md, 'a1')).toBe(['### A.1', 'a1 text', '```', '## code, not a heading', '```'].join('\n'));
    expect(section(md, 'b')).toBe('## B\nb text');
  });

  it('is undefined for an anchor the page does not have', () => {
    expect(section(md, 'c')).toBeUndefined();
  });
});

describe('renderMarkdown', () => {
  it('drops inline markup but keeps what is inside code spans as written', () => {
    expect(renderMarkdown('Run `carrental --json` **now**, *really*: `a*b*c` and [the manual](x.md), \\| a pipe.')).toBe(
      'Run carrental --json now, really: a*b*c and the manual, | a pipe.\n',
    );
  });

  it('underlines headings and indents code blocks without their fences', () => {
    expect(renderMarkdown(['## Top', 'text', '### Sub', '```console', '$ carrental cars', '```'].join('\n'))).toBe(
      ['Top', '===', 'text', 'Sub', '---', '    $ carrental cars', ''].join('\n'),
    );
  });

  it('aligns a table that fits', () => {
    expect(renderMarkdown(['| code | meaning |', '| --- | --- |', '| 0 | success |', '| 130 | interrupted (`Ctrl-C`) |'].join('\n'))).toBe(
      ['code  meaning', '----  --------------------', '0     success', '130   interrupted (Ctrl-C)', ''].join('\n'),
    );
  });

  it('wraps the last column beside narrow leading columns', () => {
    const text = renderMarkdown(['| code | meaning |', '| --- | --- |', `| 6 | ${'safe to rerun '.repeat(6).trim()} |`].join('\n'), { width: 40 });
    expect(text.split('\n')).toEqual([
      'code  meaning',
      '----  ----------------------------------',
      '6     safe to rerun safe to rerun safe',
      '      to rerun safe to rerun safe to',
      '      rerun safe to rerun',
      '',
    ]);
    for (const line of text.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('prints a table too wide for the terminal as one record per row', () => {
    const md = ['| file | what | permissions |', '| --- | --- | --- |', `| \`~/.config/carrental/config.json\` | ${'profiles '.repeat(3).trim()} | 0600 |`].join('\n');
    expect(renderMarkdown(md, { width: 40 })).toBe(['~/.config/carrental/config.json', `    what: ${'profiles '.repeat(3).trim()}`, '    permissions: 0600', ''].join('\n'));
  });

  it('reflows paragraphs and list items to the width, with a hanging indent', () => {
    const md = ['A paragraph written on', 'two short lines.', '', '- an item whose text is long enough to wrap', '  onto a second line', '- another'].join('\n');
    expect(renderMarkdown(md, { width: 24 })).toBe(
      ['A paragraph written on', 'two short lines.', '', '- an item whose text is', '  long enough to wrap', '  onto a second line', '- another', ''].join('\n'),
    );
  });

  it('keeps escaped pipes inside a table cell', () => {
    expect(renderMarkdown(['| a | b |', '| --- | --- |', '| `x\\|y` | z |'].join('\n'))).toContain('x|y  z');
  });

  it('lets the caller say where a link leads', () => {
    const text = renderMarkdown('See [exit codes](scripting.md#exit-codes) and [the spec](https://example.com/spec).', {
      linkNote: (target) => (target.startsWith('http') ? target : `carrental help ${target.split('#')[1]}`),
    });
    expect(text).toBe('See exit codes (carrental help exit-codes) and the spec (https://example.com/spec).\n');
  });

  it('drops HTML comments and collapses blank lines', () => {
    expect(renderMarkdown('a\n<!-- hidden\nmarker -->\n\n\n\nb\n')).toBe('a\n\nb\n');
  });
});
