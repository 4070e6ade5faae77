// Server strings are untrusted: an escape sequence in a car name must not repaint the
// user's terminal, and a bidirectional override must not make text read differently from
// what it is. Strip ANSI sequences (7- and 8-bit), every C0/C1 control character and the
// bidi controls.

// eslint-disable-next-line no-control-regex
const ANSI_RE = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|[\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_WITH_NEWLINE_RE = /[\u0000-\u001f\u007f-\u009f]/g;

/** For a table cell or a one-line value: no control characters at all (newlines become spaces). */
export function clean(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(ANSI_RE, '').replace(/[\r\n\t]+/g, ' ').replace(CONTROL_WITH_NEWLINE_RE, '');
}

/** For multi-line text such as a description: keeps newlines and tabs, drops the rest. */
export function cleanText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(ANSI_RE, '').replace(/\r\n?/g, '\n').replace(CONTROL_RE, '');
}
