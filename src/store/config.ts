// Profiles (base URL, app URL, default city, API key) in the OS config directory, through
// conf. The file is 0600 and every change is a locked read-modify-write, so two processes
// changing settings at once lose neither change; conf writes atomically.
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import lockfile from 'proper-lockfile';
import { CliError, usageError } from '../errors.js';
import { configDir } from './paths.js';

export const SETTING_KEYS = ['base_url', 'app_url', 'city'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export interface ProfileData {
  base_url?: string;
  app_url?: string;
  city?: string;
  api_key?: string;
}

interface ConfigShape {
  profiles: Record<string, ProfileData>;
}

export class ConfigStore {
  readonly path: string;
  private confInstance?: Conf<ConfigShape>;

  constructor(private readonly dir: string) {
    this.path = join(dir, 'config.json');
  }

  static open(env: NodeJS.ProcessEnv): ConfigStore {
    return new ConfigStore(configDir(env));
  }

  // Opened on first use and only when there is a file or something to write, so that a
  // read-only command (a CI smoke check) never creates a config by accident.
  private conf(): Conf<ConfigShape> {
    if (this.confInstance) return this.confInstance;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.confInstance = new Conf<ConfigShape>({
        cwd: this.dir,
        configName: 'config',
        projectName: 'carrental',
        configFileMode: 0o600,
        clearInvalidConfig: false,
        accessPropertiesByDotNotation: false,
      });
    } catch (err) {
      throw new CliError('api', `cannot read the config file ${this.path}: ${(err as Error).message}`, {
        hint: 'fix or move the file aside; carrental never overwrites a config it cannot read',
      });
    }
    return this.confInstance;
  }

  exists(): boolean {
    return existsSync(this.path);
  }

  /** A warning when the file holding keys is readable by group or others. */
  permissionWarning(): string | undefined {
    try {
      const mode = statSync(this.path).mode & 0o777;
      if (mode & 0o077) {
        return `${this.path} is readable by other users (mode ${mode.toString(8)}); run: chmod 600 "${this.path}"`;
      }
    } catch {
      // no file yet: nothing to warn about
    }
    return undefined;
  }

  profiles(): Record<string, ProfileData> {
    if (!this.exists()) return {};
    return { ...(this.conf().get('profiles') ?? {}) };
  }

  profile(name: string): ProfileData {
    return { ...(this.profiles()[name] ?? {}) };
  }

  /** Applies `change` to one profile under a lock; a profile left empty is removed. */
  async update(name: string, change: (p: ProfileData) => void): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const release = await lockfile.lock(this.dir, {
      lockfilePath: join(this.dir, 'config.lock'),
      realpath: false,
      stale: 10_000,
      retries: { retries: 50, factor: 1.3, minTimeout: 20, maxTimeout: 500 },
    });
    try {
      const profiles = this.profiles(); // rereads the file inside the lock
      const p = { ...(profiles[name] ?? {}) };
      change(p);
      for (const k of Object.keys(p) as Array<keyof ProfileData>) if (p[k] === undefined) delete p[k];
      if (Object.keys(p).length) profiles[name] = p;
      else delete profiles[name];
      this.conf().set('profiles', profiles);
      chmodSync(this.path, 0o600);
    } finally {
      await release();
    }
  }
}

export function checkSettingKey(key: string): SettingKey {
  if (key === 'api_key' || key === 'key') {
    throw usageError('the API key is never set on the command line', 'run `carrental auth login` (it prompts, or reads the key from stdin with --with-key)');
  }
  if (!(SETTING_KEYS as readonly string[]).includes(key)) {
    throw usageError(`unknown setting "${key}" (known: ${SETTING_KEYS.join(', ')})`);
  }
  return key as SettingKey;
}

/** Validates a value before it is stored, so a typo fails now and not at the next request. */
export function checkSettingValue(key: SettingKey, value: string): string {
  if (key === 'city') {
    if (value !== 'la' && value !== 'miami') throw usageError(`city must be la or miami, got "${value}"`);
    return value;
  }
  if (key === 'base_url' && value === 'sandbox') return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${key} must be an http(s) URL${key === 'base_url' ? ' or "sandbox"' : ''}, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${key} must use http or https, got "${value}"`);
  if (url.username || url.password) throw usageError(`${key} must not contain credentials`);
  const text = value.replace(/\/+$/, '');
  if (key === 'base_url' && !text.endsWith('/v1')) {
    throw usageError(`base_url must end with /v1 (the API version segment), got "${value}"`);
  }
  return text;
}

export { maskKey } from '../api/redact.js';
