// The links of the README and of the manual (docs/) lead somewhere: a relative link names a
// file of the repository, and its #anchor a heading of that page (GitHub's anchors, as
// src/render/markdown.ts computes them). Links to other sites are not fetched.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headings } from '../../src/render/markdown.js';
import { ROOT } from '../helpers/bin.js';
import { PAGES } from './pages.js';

/** Pages other branches write; a link to one is allowed while it is missing, and checked once it exists. */

export interface Link {
  line: number;
  text: string;
  target: string;
}

/** The inline links and images of a markdown document, outside code blocks and code spans. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((line, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && open) fence = open[1];
    else if (fence !== undefined && open && open[1][0] === fence[0] && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
    if (fence !== undefined || open) return;
    const prose = line.replace(/(`+).+?\1/g, '');
    for (const m of prose.matchAll(/!?\[([^\]]*)\]\(<?([^)\s>]*)>?(?:\s+"[^"]*")?\)/g)) links.push({ line: i + 1, text: m[1], target: m[2] });
  });
  return links;
}

describe('linksOf', () => {
  it('finds links outside code, with their line', () => {
    const md = ['See [a](x.md#b) and `[not](a link)`.', '```', '[nor](this.md)', '```', '![img](pic.png "title")'].join('\n');
    expect(linksOf(md)).toEqual([
      { line: 1, text: 'a', target: 'x.md#b' },
      { line: 5, text: 'img', target: 'pic.png' },
    ]);
  });
});

const anchorsOf = new Map<string, Set<string>>();
function anchors(file: string): Set<string> {
  let set = anchorsOf.get(file);
  if (!set) anchorsOf.set(file, (set = new Set(headings(readFileSync(join(ROOT, file), 'utf8')).map((h) => h.slug))));
  return set;
}

describe.each(PAGES)('%s', (page) => {
  const links = linksOf(readFileSync(join(ROOT, page), 'utf8'));
  const local = links.filter((l) => !/^[a-z][a-z+.-]*:/i.test(l.target));

  it('has only links that lead somewhere', () => {
    const broken: string[] = [];
    for (const link of local) {
      const [path, anchor] = link.target.split('#');
      const file = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
      const where = `${page}:${link.line} [${link.text}](${link.target})`;
      if (file.startsWith('..') || relative(ROOT, join(ROOT, file)).startsWith('..')) {
        broken.push(`${where}: outside the repository`);
        continue;
      }
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${where}: no file ${file}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(join(ROOT, file)).isDirectory() || !file.endsWith('.md')) broken.push(`${where}: an anchor into a file that is not a page`);
      else if (!anchors(file).has(anchor)) broken.push(`${where}: ${file} has no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});

describe('the manual', () => {
  it('every page of docs/ is reachable from the README or the index', () => {
    const linked = new Set(
      ['README.md', 'docs/README.md'].flatMap((p) => linksOf(readFileSync(join(ROOT, p), 'utf8')).map((l) => normalize(join(dirname(p), l.target.split('#')[0])))),
    );
    for (const page of PAGES) if (page !== 'README.md') expect(linked, `${page} is linked from neither README.md nor docs/README.md`).toContain(page);
  });

  it('the README stays a front door: at most 250 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });
});
