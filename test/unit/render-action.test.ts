import { describe, expect, it } from 'vitest';
import type { ManualAction } from '../../src/api/schemas.js';
import { printAction } from '../../src/render/action.js';
import { fakeOutput } from '../helpers/output.js';

const action: ManualAction = {
  action: 'add_payment_card',
  status: 'requires_user_action',
  url: 'http://127.0.0.1:9/billing/card-add?agent_flow_id=9d1c7a8e-0f4b-4a43-9b53-4f1f8f6e2c11',
  agent_flow_id: '9d1c7a8e-0f4b-4a43-9b53-4f1f8f6e2c11',
};

describe('printAction', () => {
  it('in a pipe prints the url alone on stdout (one value asked for), the flow id and the reminder on stderr', () => {
    const o = fakeOutput();
    printAction(o.out, action, { nextStep: 'run `carrental cards`' });
    expect(o.stdout()).toBe(`${action.url}\n`);
    expect(o.stderr()).toContain(`agent_flow_id: ${action.agent_flow_id}\n`);
    expect(o.stderr()).toContain('Opening the link is not completion');
    expect(o.stderr()).toContain('Then run `carrental cards`.');
    expect(o.stderr()).not.toContain('Opened');
  });

  it('says whether the browser was opened', () => {
    const opened = fakeOutput();
    printAction(opened.out, action, { opened: true });
    expect(opened.stderr()).toContain('Opened in your browser.');
    const headless = fakeOutput();
    printAction(headless.out, action, { opened: 'no graphical session' });
    expect(headless.stderr()).toContain('Not opened (no graphical session): open the link yourself.');
    expect(headless.stdout().split('\n')[0]).toBe(action.url);
  });

  it('with --json prints only the payload on stdout', () => {
    const o = fakeOutput({ json: true });
    const payload = { ...action, extra: 1 };
    printAction(o.out, action, { payload });
    expect(JSON.parse(o.stdout())).toEqual(payload);
    expect(o.stderr()).toContain('not completion');
  });

  it('strips control characters from a hostile url', () => {
    const o = fakeOutput();
    printAction(o.out, { ...action, url: 'http://x/\u001b]8;;evil\u0007page' });
    expect(o.stdout()).not.toMatch(/\u001b|\u0007/);
  });
});
