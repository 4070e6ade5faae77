// The terminal styles carrental uses: the basic 16-colour ANSI codes (chalk's level 1).
// Whether colour is on is decided once, in resolveGlobals (--no-color, NO_COLOR,
// FORCE_COLOR, a TTY). Written here rather than taken from chalk, whose colour detection
// and style tables run when it is loaded, on every command, even with colour off
// (docs/performance.md, "What start-up costs"); test/unit/style.test.ts holds the output
// to chalk's, byte for byte.

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** A style as chalk applies one: a nested style's close re-opens this one, and every line is closed and re-opened (a pager or `less -R` shows each line alone). */
function paint(open: number, close: number): (text: string) => string {
  const on = `\u001b[${open}m`;
  const off = `\u001b[${close}m`;
  return (text) => {
    if (!text) return text;
    const inner = text.includes('\u001b') ? text.replaceAll(off, off + on) : text;
    return on + inner.replace(/\r?\n/g, (lineBreak) => off + lineBreak + on) + off;
  };
}

const ANSI: Style = {
  bold: paint(1, 22),
  dim: paint(2, 22),
  red: paint(31, 39),
  green: paint(32, 39),
  yellow: paint(33, 39),
  cyan: paint(36, 39),
};
const PLAIN: Style = { bold: String, dim: String, red: String, green: String, yellow: String, cyan: String };

export function makeStyle(enabled: boolean): Style {
  return enabled ? ANSI : PLAIN;
}
