// auth login/status/logout and config get/set/unset/list/path, in-process, against a
// loopback sandbox, inside a temp home (never the user's config).
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

// a terminal's text without its styles
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

let sb: TestSandbox;
let home: TestHome;

sandboxPerTest((started) => (sb = started), (fresh) => (home = fresh));

const cli = (argv: string[], opts: RunOpts = {}) => runCommand(argv, { ...opts, env: home.env(opts.env) });
const configFile = () => join(home.dir, 'config', 'config.json');
const stored = () => (existsSync(configFile()) ? JSON.parse(readFileSync(configFile(), 'utf8')).profiles : undefined);
const login = (key: string, extra: string[] = [], opts: RunOpts = {}) =>
  cli(['--base-url', sb.baseUrl, ...extra, 'auth', 'login', '--with-key'], { stdin: key, ...opts });

describe('auth login', () => {
  it('--with-key reads stdin, checks the key with GET /my/profile, then saves it 0600', async () => {
    const key = sb.keys.booking_write;
    const r = await login(`${key}\n`);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Logged in as Dana: key svc_…${key.slice(-4)} saved to profile "default" (${configFile()})\n`);
    expect(stored()).toEqual({ default: { api_key: key, base_url: sb.baseUrl } });
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.dir, 'config')).mode & 0o777).toBe(0o700);
    expect((await sb.requests()).map((q) => [q.operation, q.credentials, q.status])).toEqual([['getProfile', 'authorization', 200]]);
  });

  it('--json prints who logged in, with the key masked', async () => {
    const r = await login(sb.keys.read_only, ['--json', '--profile', 'ci']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ profile: 'ci', base_url: sb.baseUrl, key: `svc_…${sb.keys.read_only.slice(-4)}`, customer: { first_name: 'Dana' } });
    expect(stored()).toEqual({ ci: { api_key: sb.keys.read_only, base_url: sb.baseUrl } });
  });

  it('keeps the profile’s own base URL and warns when the key was checked elsewhere', async () => {
    expect((await cli(['config', 'set', 'base_url', 'https://api.example.com/v1'])).code).toBe(0);
    const r = await login(sb.keys.booking_write);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: profile "default" uses base_url https://api.example.com/v1, but the key was checked against ${sb.baseUrl}`);
    expect(stored().default.base_url).toBe('https://api.example.com/v1');
  });

  it('a refused key is exit 3 and nothing is saved', async () => {
    const r = await login('svc_00000000000000000000000000000000');
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: the key was refused, nothing was saved: .+ \(invalid_credentials, request req_/);
    expect(r.stderr).not.toContain('svc_00000000000000000000000000000000');
    expect(stored()).toBeUndefined();
  });

  it.each([
    ['sk_live_abcdef0123456789', 'error: an API key starts with "svc_" (create one in your account settings)'],
    ['', 'error: --with-key read nothing from standard input'],
    ['svc_abc def\nsvc_second', 'error: the API key has unexpected characters (one key, no spaces or line breaks)'],
  ])('refuses %j before any request (exit 2)', async (input, message) => {
    const r = await login(input);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(message);
    expect(await sb.requests()).toEqual([]);
    expect(stored()).toBeUndefined();
  });

  it('without --with-key and no terminal it says how to pipe the key (exit 2)', async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'auth', 'login']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: no terminal to prompt for the key on');
    expect(r.stderr).toContain('--with-key');
    const noInput = await cli(['--base-url', sb.baseUrl, '--no-input', 'auth', 'login'], { tty: true, stdinTty: true });
    expect(noInput.code).toBe(2);
    const ci = await cli(['--base-url', sb.baseUrl, 'auth', 'login'], { tty: true, stdinTty: true, env: { CI: 'true' } });
    expect(ci.code).toBe(2);
  });

  it('in the accessible mode asks a plain question, reads the key unechoed, asks again after a bad one', async () => {
    const key = sb.keys.booking_write;
    const r = await cli(['--base-url', sb.baseUrl, 'auth', 'login'], { tty: true, stdinTty: true, stdin: `not-a-key\r${key}\r`, env: { CARRENTAL_ACCESSIBLE: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(plain(r.stderr)).toContain('API key (svc_…, from your account settings) (typing is not shown; press Enter when done): \n9 characters read.\n');
    expect(plain(r.stderr)).toContain('an API key starts with "svc_"');
    expect(plain(r.stderr)).toContain(`Logged in as Dana: key svc_…${key.slice(-4)} saved`);
    expect(r.stderr).not.toContain(key);
    expect(r.stderr).not.toContain('\u001b[');
  });

  it('prompts on a terminal with the input masked', async () => {
    const key = sb.keys.booking_write;
    const r = await cli(['--base-url', sb.baseUrl, 'auth', 'login'], { tty: true, stdinTty: true, stdin: `${key}\r` });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('API key');
    expect(r.stderr).toContain('*'.repeat(key.length));
    expect(r.stderr + r.stdout).not.toContain(key);
    expect(stored().default.api_key).toBe(key);
  });

  it('Ctrl-C at the prompt is exit 130 and saves nothing', async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'auth', 'login'], { tty: true, stdinTty: true, stdin: 'svc_12\u0003' });
    expect(r.code).toBe(130);
    expect(stored()).toBeUndefined();
  });

  it('needs an API to check the key against: a profile without base URL is exit 2 before reading the key', async () => {
    const r = await cli(['auth', 'login', '--with-key'], { stdin: sb.keys.read_only });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no API base URL for profile "default"');
  });

  it('saves with a warning when the deployment does not open /my/profile to keys yet', async () => {
    await sb.fault({ kind: 'operation_not_enabled', operation: 'getProfile', times: 1 });
    const r = await login(sb.keys.read_only);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: this deployment does not let keys read /my/profile yet');
    expect(stored().default.api_key).toBe(sb.keys.read_only);
  });
});

describe('auth status', () => {
  it('no key: exit 3 and says how to log in', async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'auth', 'status']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(`profile\tdefault\nbase url\t${sb.baseUrl}\nsandbox\tno\nkey\t\nkey source\t\ncapability\tunknown\ncustomer\t\nfirst name\t\napproved to drive\t\nsaved card\t\n`);
    expect(r.stderr).toBe('error: no API key for profile "default"\nhint: run `carrental auth login`, or set CARRENTAL_API_KEY\n');
    expect(await sb.requests()).toEqual([]);
  });

  it('a stored key: masked, from the profile, and whose it is', async () => {
    await login(sb.keys.booking_write);
    const r = await cli(['auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`base url\t${sb.baseUrl}\n`);
    expect(r.stdout).toContain(`key\tsvc_…${sb.keys.booking_write.slice(-4)}\nkey source\tprofile\n`);
    expect(r.stdout).toMatch(/customer\t[0-9a-f-]{36}\nfirst name\tDana\n/);
    expect(r.stdout).toContain('approved to drive\tyes\n');
    // a terminal: the same in sentences
    const shown = plain((await cli(['auth', 'status'], { tty: true })).stdout);
    expect(shown).toMatch(/key\S*\s+svc_…\w{4} \(from profile\)/);
    expect(shown).toMatch(/customer\S*\s+Dana \([0-9a-f-]{36}\)/);
    expect(r.stdout + r.stderr).not.toContain(sb.keys.booking_write);
  });

  it('CARRENTAL_API_KEY wins over the profile, and says so', async () => {
    await login(sb.keys.booking_write);
    const r = await cli(['auth', 'status', '--json'], { env: { CARRENTAL_API_KEY: sb.keys.other_customer } });
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout);
    expect(status).toMatchObject({ profile: 'default', key: `svc_…${sb.keys.other_customer.slice(-4)}`, key_source: 'env', valid: true });
    expect(status.customer.first_name).not.toBe('Dana');
  });

  it('an invalid key: exit 3, status printed, then the API error', async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'auth', 'status', '--json'], { env: { CARRENTAL_API_KEY: 'svc_ffffffffffffffffffffffffffffffff' } });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ key: 'svc_…ffff', key_source: 'env', valid: false, customer: null });
    expect(r.stderr).toContain('(invalid_credentials');
    expect(r.stderr).not.toContain('svc_ffffffffffffffffffffffffffffffff');
  });

  it('--sandbox without a key uses the sandbox demo customer', async () => {
    const r = await cli(['--sandbox', 'auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/base url\thttp:\/\/127\.0\.0\.1:\d+\/v1\nsandbox\tyes\n/);
    expect(r.stdout).toContain('key source\tsandbox-demo\n');
    expect(existsSync(join(home.dir, 'data', 'sandbox-state.json'))).toBe(true);
  });
});

describe('auth logout', () => {
  it('forgets the stored key; status then fails with exit 3', async () => {
    await login(sb.keys.booking_write);
    const r = await cli(['auth', 'logout']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Removed the key of profile "default". The key stays valid until you revoke it in your account settings.\n');
    expect(stored()).toEqual({ default: { base_url: sb.baseUrl } });
    expect((await cli(['auth', 'status'])).code).toBe(3);
    const again = await cli(['auth', 'logout', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ profile: 'default', removed: false });
  });

  it('warns that CARRENTAL_API_KEY still applies', async () => {
    const r = await cli(['auth', 'logout'], { env: { CARRENTAL_API_KEY: sb.keys.read_only } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: CARRENTAL_API_KEY is still set');
  });
});

describe('config', () => {
  it('path prints the file inside the config directory', async () => {
    const r = await cli(['config', 'path']);
    expect(r.stdout).toBe(`${configFile()}\n`);
    expect(JSON.parse((await cli(['config', 'path', '--json'])).stdout)).toEqual({ path: configFile() });
    expect(existsSync(configFile())).toBe(false);
  });

  it('set / get / unset, per profile; the file is 0600', async () => {
    expect((await cli(['config', 'set', 'base_url', 'https://api.example.com/v1/'])).code).toBe(0);
    expect((await cli(['config', 'set', 'city', 'miami', '--profile', 'work'])).code).toBe(0);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect((await cli(['config', 'get', 'base_url'])).stdout).toBe('https://api.example.com/v1\n');
    expect((await cli(['config', 'get', 'city'], { env: { CARRENTAL_PROFILE: 'work' } })).stdout).toBe('miami\n');
    expect(JSON.parse((await cli(['--json', 'config', 'get', 'city', '--profile', 'work'])).stdout)).toEqual({ profile: 'work', key: 'city', value: 'miami' });
    const unsetValue = await cli(['config', 'get', 'city']);
    expect(unsetValue.code).toBe(1);
    expect(unsetValue.stdout).toBe('');
    expect(unsetValue.stderr).toBe(''); // as documented: nothing, exit 1
    expect((await cli(['config', 'unset', 'city', '--profile', 'work'])).code).toBe(0);
    expect(stored()).toEqual({ default: { base_url: 'https://api.example.com/v1' } });
    expect((await cli(['config', 'set', 'base_url', 'sandbox', '--profile', 'demo'])).code).toBe(0);
    expect(stored().demo).toEqual({ base_url: 'sandbox' });
  });

  it('list shows every profile with the key masked; --json too', async () => {
    await login(sb.keys.booking_write);
    await cli(['config', 'set', 'city', 'la', '--profile', 'work']);
    const masked = `svc_…${sb.keys.booking_write.slice(-4)}`;
    const r = await cli(['config', 'list']);
    expect(r.stdout).toBe(`default\tbase_url\t${sb.baseUrl}\ndefault\tapi_key\t${masked}\nwork\tcity\tla\n`);
    const j = JSON.parse((await cli(['config', 'list', '--json'])).stdout);
    expect(j).toEqual({ path: configFile(), active_profile: 'default', profiles: { default: { base_url: sb.baseUrl, api_key: masked }, work: { city: 'la' } } });
    expect(JSON.stringify(j)).not.toContain(sb.keys.booking_write);
  });

  it('refuses the key as a setting, unknown settings and bad values (exit 2, nothing written)', async () => {
    const key = await cli(['config', 'set', 'api_key', 'abc']);
    expect(key.code).toBe(2);
    expect(key.stderr).toBe('error: the API key is never set on the command line\nhint: run `carrental auth login` (it prompts, or reads the key from stdin with --with-key)\n');
    expect((await cli(['config', 'set', 'api_key', sb.keys.read_only])).code).toBe(2);
    expect((await cli(['config', 'get', 'api_key'])).code).toBe(2);
    expect((await cli(['config', 'set', 'colour', 'blue'])).stderr).toContain('unknown setting "colour"');
    expect((await cli(['config', 'set', 'base_url', 'https://x.example.com'])).stderr).toContain('must end with /v1');
    expect((await cli(['config', 'set', 'city', 'paris'])).code).toBe(2);
    expect(stored()).toBeUndefined();
  });

  it('warns when the file is readable by group or others', async () => {
    await cli(['config', 'set', 'city', 'la']);
    chmodSync(configFile(), 0o644);
    const r = await cli(['config', 'get', 'city']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: ${configFile()} is readable by other users (mode 644); run: chmod 600 "${configFile()}"\n`);
    // the next write puts the mode back
    await cli(['config', 'set', 'city', 'miami']);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
  });

  it('a config file that is not JSON is reported, never overwritten (exit 1)', async () => {
    await cli(['config', 'set', 'city', 'la']);
    writeFileSync(configFile(), '{ "profiles": ');
    const read = await cli(['config', 'get', 'city']);
    expect(read.code).toBe(1);
    expect(read.stderr).toMatch(/^error: cannot read the config file .+config\.json: /);
    expect(read.stderr).toContain('hint: fix or move the file aside; carrental never overwrites a config it cannot read');
    expect((await cli(['config', 'set', 'city', 'miami'])).code).toBe(1);
    expect(readFileSync(configFile(), 'utf8')).toBe('{ "profiles": ');
  });

  it('a read-only command never creates the config file', async () => {
    await cli(['config', 'list']);
    await cli(['--base-url', sb.baseUrl, 'cars', '--limit', '1']);
    expect(existsSync(configFile())).toBe(false);
  });
});

describe('auth status: what the key may do', () => {
  it('the embedded sandbox tells it: booking_write for the demo key, read_only for the read-only one', async () => {
    const write = await cli(['--sandbox', 'auth', 'status']);
    expect(write.code, write.stderr).toBe(0);
    expect(write.stdout).toContain('capability\tbooking_write\n');
    const keys = JSON.parse((await cli(['sandbox', 'keys', '--json'])).stdout) as { read_only: string };
    const read = await cli(['--sandbox', 'auth', 'status', '--json'], { env: { CARRENTAL_API_KEY: keys.read_only } });
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).capability).toBe('read_only');
  });

  it('an API that does not say: unknown, and on a terminal why', async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'auth', 'status'], { tty: true, env: { CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/capability\s+unknown: the API does not say what a key may do/);
  });
});
