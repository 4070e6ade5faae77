// The manual (docs/*.md) as plain terminal text, for `carrental help <topic>`, and the
// heading anchors GitHub gives it, which the help topics and the link test both use.
// Only the markdown the manual is written in: headings, paragraphs, lists, tables, fenced
// blocks, and inline code, emphasis and links.

export interface Heading {
  level: number;
  text: string;
  /** GitHub's anchor for it (`## Exit codes` is `#exit-codes`), with -1, -2... on repeats. */
  slug: string;
  /** 0-based line. */
  line: number;
}

const FENCE_RE = /^\s*(`{3,}|~{3,})/;

/** GitHub's anchor: lower case, punctuation dropped, spaces to hyphens (inline markup dropped first). */
export function slugify(heading: string): string {
  return plainInline(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

type LineKind = 'text' | 'fence' | 'code';

/** Each line's kind: a fence that opens or closes a block, a line inside one, or text. */
function lineKinds(lines: string[]): LineKind[] {
  let fence: string | undefined;
  return lines.map((line) => {
    const open = FENCE_RE.exec(line);
    if (fence === undefined) {
      if (!open) return 'text';
      fence = open[1];
      return 'fence';
    }
    if (open && open[1][0] === fence[0] && open[1].length >= fence.length && line.trim().replace(/[`~]/g, '') === '') {
      fence = undefined;
      return 'fence';
    }
    return 'code';
  });
}

export function headings(markdown: string): Heading[] {
  const lines = markdown.split('\n');
  const kinds = lineKinds(lines);
  const seen = new Map<string, number>();
  const result: Heading[] = [];
  lines.forEach((line, i) => {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m || kinds[i] !== 'text') return;
    const base = slugify(m[2]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.push({ level: m[1].length, text: m[2], slug: n ? `${base}-${n}` : base, line: i });
  });
  return result;
}

/** The section under the heading with this anchor, up to the next heading of its level or above. */
export function section(markdown: string, slug: string): string | undefined {
  const all = headings(markdown);
  const at = all.findIndex((h) => h.slug === slug);
  if (at < 0) return undefined;
  const end = all.slice(at + 1).find((h) => h.level <= all[at].level);
  return markdown
    .split('\n')
    .slice(all[at].line, end?.line)
    .join('\n')
    .trimEnd();
}

export interface RenderOptions {
  /** Tables wider than this are printed as one record per row. */
  width?: number;
  /** What a link adds after its text (e.g. where to read more); nothing by default. */
  linkNote?: (target: string) => string | undefined;
}

/** Inline markup to plain text: code spans, emphasis and links keep only their text. */
function plainInline(text: string, linkNote?: RenderOptions['linkNote']): string {
  // code spans first, so that `*` or `[` inside them stay as written
  const codes: string[] = [];
  let out = text.replace(/(`+)(.+?)\1/g, (_m, _ticks: string, code: string) => {
    codes.push(code.trim() === '' ? code : code.replace(/^ (.*) $/, '$1'));
    return `\u0000${codes.length - 1}\u0000`;
  });
  out = out
    .replace(/<!--.*?-->/g, '')
    .replace(/!?\[([^\]]*)\]\(([^)\s]*)\)/g, (_m, label: string, target: string) => {
      const note = linkNote?.(target);
      return note ? `${label} (${note})` : label;
    })
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/(^|[^\w*])\*([^*\s][^*]*?)\*(?=[^\w*]|$)/g, '$1$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1');
  return out.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => codes[Number(i)]);
}

/** Splits a table row on its unescaped pipes. */
function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  const result: string[] = [];
  let cell = '';
  let code = false;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\' && inner[i + 1] === '|') {
      cell += '\\|';
      i++;
    } else if (c === '`') {
      code = !code;
      cell += c;
    } else if (c === '|' && !code) {
      result.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  result.push(cell.trim());
  return result;
}

function renderTable(rows: string[], opts: RenderOptions): string[] {
  const width = opts.width ?? 100;
  // inside a code span GitHub still needs `\|`; the reader wants `|`
  const parsed = rows.filter((_r, i) => i !== 1).map((r) => cells(r).map((c) => plainInline(c.replace(/\\\|/g, '|'), opts.linkNote)));
  const [header, ...body] = parsed;
  const widths = header.map((_h, col) => Math.max(...parsed.map((r) => (r[col] ?? '').length)));
  const last = widths.length - 1;
  const lead = widths.slice(0, last).reduce((a, b) => a + b + 2, 0);
  // narrow leading columns (codes, names): aligned, with the last column wrapped beside them
  if (lead + widths[last] <= width || (last > 0 && lead <= width * 0.4)) {
    const room = width - lead;
    const line = (r: string[]) =>
      wrap(r[last] ?? '', room).map((part, k) => {
        // the leading cells on the first line only, blank under them after
        const leading = r.slice(0, last).map((c, col) => (k === 0 ? (c ?? '') : '').padEnd(widths[col]));
        return [...leading, part].join('  ').trimEnd();
      });
    return [...line(header), widths.map((w, col) => '-'.repeat(col === last ? Math.min(w, room) : w)).join('  '), ...body.flatMap(line)];
  }
  // too wide for a terminal: the first cell as a title, the others indented under it
  const out: string[] = [];
  for (const row of body) {
    out.push(...hanging(row[0], '', '', width));
    row.slice(1).forEach((c, i) => {
      if (c) out.push(...hanging(header.length > 2 && header[i + 1] ? `${header[i + 1]}: ${c}` : c, '    ', '    ', width));
    });
  }
  return out;
}

/** Words of `text` in lines of at most `width` characters (a longer word keeps its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  return [...lines, current];
}

/** `text` wrapped to `width`, its first line after `first`, the others after `rest`. */
function hanging(text: string, first: string, rest: string, width: number): string[] {
  return wrap(text, width - first.length).map((line, i) => `${i ? rest : first}${line}`);
}

/** Markdown to plain text for a terminal: no markup, tables aligned, code indented. */
export function renderMarkdown(markdown: string, opts: RenderOptions = {}): string {
  const lines = markdown.replace(/<!--[\s\S]*?-->/g, '').split('\n');
  const kinds = lineKinds(lines);
  const width = opts.width ?? 100;
  const out: string[] = [];
  // the paragraph or list item being read: its first-line prefix (`- ` with its indent), the
  // indent of its other lines, and its words
  let block: { first: string; rest: string; text: string[] } | undefined;
  const flush = () => {
    if (block) out.push(...hanging(plainInline(block.text.join(' '), opts.linkNote), block.first, block.rest, width));
    block = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (kinds[i] !== 'text') {
      flush();
      if (kinds[i] === 'code') out.push(`    ${line}`.trimEnd());
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      const text = plainInline(heading[2], opts.linkNote);
      out.push(text, (heading[1].length <= 2 ? '=' : '-').repeat(text.length));
      continue;
    }
    if (/^\s*\|/.test(line)) {
      flush();
      const rows: string[] = [];
      while (i < lines.length && kinds[i] === 'text' && /^\s*\|/.test(lines[i])) rows.push(lines[i++]);
      i--;
      out.push(...renderTable(rows, opts));
      continue;
    }
    if (line.trim() === '') {
      flush();
      out.push('');
      continue;
    }
    const item = /^(\s*)([-*+]|\d+\.)\s+(.*)$/.exec(line);
    if (item) {
      flush();
      const first = `${item[1]}${item[2]} `;
      block = { first, rest: ' '.repeat(first.length), text: [item[3]] };
    } else if (block) block.text.push(line.trim());
    else {
      const indent = /^\s*/.exec(line)![0];
      block = { first: indent, rest: indent, text: [line.trim()] };
    }
  }
  flush();
  // one blank line between blocks, none at either end
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').replace(/^\n+/, '').trimEnd()}\n`;
}
