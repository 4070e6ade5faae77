// `carrental config get|set|unset|list|path`: the settings of a profile. The API key is
// not a setting: it is stored by `auth login` only, and `list` shows it masked.
import { maskKey } from '../text/redact.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { noSuchProfile, openConfig, output } from '../session/services.js';
import { checkSettingKey, checkSettingValue, SETTING_KEYS, type ProfileData } from '../store/config.js';

export type ConfigInput = InputOf<'config set'>;

export async function get(input: InputOf<'config get'>, ctx: Context): Promise<number> {
  const key = checkSettingKey(input.key ?? '');
  const out = output(ctx);
  const profile = ctx.globals.profile;
  const config = openConfig(ctx);
  if (profile !== 'default' && !Object.hasOwn(config.profiles(), profile)) throw noSuchProfile(profile, config);
  const value = config.profile(profile)[key];
  if (ctx.globals.json) out.printJson({ profile, key, value: value ?? null });
  else if (value !== undefined) out.line(value);
  // like `git config`: an unset value prints nothing and is exit 1, so `|| default` works
  return value === undefined ? 1 : 0;
}

export async function set(input: ConfigInput, ctx: Context): Promise<number> {
  const key = checkSettingKey(input.key ?? '');
  const value = checkSettingValue(key, input.value ?? '');
  const out = output(ctx);
  const config = openConfig(ctx);
  const profile = ctx.globals.profile;
  await config.update(profile, (p) => {
    p[key] = value;
  });
  if (ctx.globals.json) out.printJson({ profile, key, value });
  else out.info(`${key} = ${value} (profile "${profile}")`);
  return 0;
}

export async function unset(input: InputOf<'config unset'>, ctx: Context): Promise<number> {
  const key = checkSettingKey(input.key ?? '');
  const out = output(ctx);
  const config = openConfig(ctx);
  const profile = ctx.globals.profile;
  if (profile !== 'default' && !Object.hasOwn(config.profiles(), profile)) throw noSuchProfile(profile, config);
  const had = config.profile(profile)[key] !== undefined;
  if (had) {
    await config.update(profile, (p) => {
      delete p[key];
    });
  }
  if (ctx.globals.json) out.printJson({ profile, key, removed: had });
  else out.info(had ? `removed ${key} from profile "${profile}"` : `${key} was not set for profile "${profile}"`);
  return 0;
}

const masked = (p: ProfileData): ProfileData => (p.api_key ? { ...p, api_key: maskKey(p.api_key) } : { ...p });

export async function list(_input: unknown, ctx: Context): Promise<number> {
  const out = output(ctx);
  const config = openConfig(ctx);
  const profiles = Object.fromEntries(Object.entries(config.profiles()).map(([name, p]) => [name, masked(p)]));
  if (ctx.globals.json) {
    out.printJson({ path: config.path, active_profile: ctx.globals.profile, profiles });
    return 0;
  }
  const rows: string[][] = [];
  for (const [name, p] of Object.entries(profiles).sort(([a], [b]) => a.localeCompare(b))) {
    for (const key of [...SETTING_KEYS, 'api_key'] as const) if (p[key] !== undefined) rows.push([name, key, p[key]!]);
  }
  if (rows.length) out.table(['PROFILE', 'SETTING', 'VALUE'], rows, { ids: [0, 1] });
  else out.info(`no settings yet (${config.path})`);
  if (out.tty) out.info(`active profile: ${ctx.globals.profile}; file: ${config.path}`);
  return 0;
}

export async function path(_input: unknown, ctx: Context): Promise<number> {
  const out = output(ctx);
  const file = openConfig(ctx).path;
  if (ctx.globals.json) out.printJson({ path: file });
  else out.line(file);
  return 0;
}
