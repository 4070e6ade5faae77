// The contract report as JUnit XML, the format CI systems (GitLab, GitHub Actions through a
// reporter, Jenkins, CircleCI) display: one test suite, one test case per operation and
// rule checked, a <failure> per violated case with every finding in it, a <skipped/> for
// an operation that was not deployed or not checked, an <error> for a request that failed.
import { scrubSecrets } from '../text/redact.js';
import type { Finding } from './check.js';
import { RULES } from './rules.js';
import type { ContractReport } from './run.js';

/** Text for XML content and attribute values: markup escaped, characters XML 1.0 forbids dropped. */
export function xmlEscape(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      .replace(/\r/g, '&#13;')
      .replace(/\n/g, '&#10;')
  );
}

function findingLine(f: Finding): string {
  return `${f.path}: saw ${f.saw}`;
}

/**
 * `secrets`: the key the check ran with. The file leaves the terminal's mask behind (a CI
 * system publishes it), so every text a server may have put in it is masked here, in any
 * spelling, and anything key-shaped with it.
 */
export function toJunit(report: ContractReport, opts: { name: string; timestamp: Date; secrets?: Array<string | undefined> }): string {
  const secrets = opts.secrets ?? [];
  // masked before the escape: XML drops some controls, which would join a key split by them
  const escape = (text: string) => xmlEscape(scrubSecrets(text, secrets));
  const attr = (name: string, value: string | number) => ` ${name}="${escape(String(value))}"`;
  const cases: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  for (const op of report.operations) {
    if (op.status === 'not_deployed' || op.status === 'skipped') {
      tests++;
      skipped++;
      cases.push(`    <testcase${attr('classname', op.id)}${attr('name', `${op.request} (not checked)`)}>\n      <skipped${attr('message', op.detail)}/>\n    </testcase>`);
      continue;
    }
    if (op.status === 'failed') {
      tests++;
      errors++;
      cases.push(`    <testcase${attr('classname', op.id)}${attr('name', op.request)}>\n      <error${attr('message', op.detail)}/>\n    </testcase>`);
      continue;
    }
    for (const rule of op.rules) {
      tests++;
      const found = report.findings.filter((f) => f.operation === op.id && f.rule === rule);
      const name = `${op.request}: ${RULES[rule].title}`;
      if (!found.length) {
        cases.push(`    <testcase${attr('classname', op.id)}${attr('name', name)}/>`);
        continue;
      }
      failures++;
      const message = `${found.length} violation${found.length === 1 ? '' : 's'} of: ${RULES[rule].spec}`;
      const body = [...found.map(findingLine), '', `spec: ${found[0].spec}`].join('\n');
      cases.push(`    <testcase${attr('classname', op.id)}${attr('name', name)}>\n      <failure${attr('message', message)}${attr('type', rule)}>${escape(body)}</failure>\n    </testcase>`);
    }
  }
  // findings of a step that made no test case of its own (a retry-after met on a refused request)
  const covered = new Set(report.operations.flatMap((op) => (op.status === 'checked' ? op.rules.map((r) => `${op.id} ${r}`) : [])));
  for (const f of report.findings.filter((x) => !covered.has(`${x.operation} ${x.rule}`))) {
    tests++;
    failures++;
    cases.push(
      `    <testcase${attr('classname', f.operation)}${attr('name', RULES[f.rule].title)}>\n      <failure${attr('message', RULES[f.rule].spec)}${attr('type', f.rule)}>${escape(findingLine(f))}</failure>\n    </testcase>`,
    );
  }
  for (const problem of report.problems.filter((p) => !report.operations.some((op) => op.status === 'failed' && p.startsWith(`${op.id} (`)))) {
    tests++;
    errors++;
    cases.push(`    <testcase${attr('classname', 'contract')}${attr('name', 'problem')}>\n      <error${attr('message', problem)}/>\n    </testcase>`);
  }
  const suite = `${attr('name', opts.name)}${attr('tests', tests)}${attr('failures', failures)}${attr('errors', errors)}${attr('skipped', skipped)}${attr('timestamp', opts.timestamp.toISOString().slice(0, 19))}`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attr('name', 'carrental doctor --contract')}${attr('tests', tests)}${attr('failures', failures)}${attr('errors', errors)}>\n  <testsuite${suite}>\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}
