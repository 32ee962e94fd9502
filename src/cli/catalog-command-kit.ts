// Shared plumbing of the catalog commands (workspace, site, tenant, goal, token, embed-key, share): the command
// family, opening the control plane around each command, and argument checks that name every
// problem at once.
import type { Command } from 'commander';
import { CatalogError, type CatalogStore } from '../ports/catalog-store.js';
import { validateApiPolicyOverrides, type ApiPolicy } from '../domain/plans.js';
import type { Config } from '../config/config.js';
import type { PeopleStore } from '../ports/people-store.js';
import type { EmbedStore } from '../ports/embed-store.js';
import type { ReportStore } from '../ports/report-store.js';
import { ManageError } from '../domain/manage-errors.js';
import { openControlStores } from '../container.js';
import { commandConfig, type StoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';
import { isSiteRegistrationCode } from '../services/ownership/registration-codes.js';

export interface Result {
  json: Record<string, unknown>;
  text: string;
}
export type Opts = StoreOptions & Record<string, unknown>;

/** What a command may use beyond the catalog: the control plane's stores (people too) and the settings. */
export interface CommandContext {
  control: { catalog: CatalogStore; people: PeopleStore; embeds: EmbedStore; reports: ReportStore };
  config: Readonly<Config>;
}

/**
 * A command family. Commander's own argument errors (unknown option, missing value) also honour
 * --json: the same error object as every other failure goes to stdout.
 */
export function group(program: Command, name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .configureOutput({
      outputError: (str, write) => {
        if (process.argv.includes('--json'))
          process.stdout.write(
            JSON.stringify({ error: { code: 'INVALID_ARGUMENTS', message: str.trim().replace(/^error: /, '') } }) + '\n',
          );
        write(str);
      },
    });
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** What commander hands an action: its positional arguments, then the options and the command. */
export function actionParams(params: unknown[]): { opts: Opts; args: string[]; json: boolean } {
  const opts = (params[params.length - 1] as Command).opts() as Opts;
  return { opts, args: params.slice(0, -2) as string[], json: opts.json === true };
}

/** Opens the control plane, runs the command, always closes, and reports failures without a stack trace. */
export function run(fn: (catalog: CatalogStore, opts: Opts, args: string[], ctx: CommandContext) => Promise<Result>) {
  return async (...params: unknown[]): Promise<void> => {
    const { opts, args, json } = actionParams(params);
    try {
      const config = commandConfig(opts);
      const cp = await openControlStores(config);
      try {
        const out = await fn(cp.catalog, opts, args, { control: cp, config });
        emit(json, out.json, out.text);
      } finally {
        await cp.close();
      }
    } catch (err) {
      fail(json, asCliError(err));
    }
  };
}

export function asCliError(err: unknown): unknown {
  // The spec's site registration codes are refusals of the request, not of its arguments: exit 1.
  if (err instanceof CatalogError) return new CliError(err.message, err.code, isSiteRegistrationCode(err.code) ? 1 : 2, err.details);
  if (err instanceof ManageError) return new CliError(err.message, err.code, 2, err.details);
  return err;
}

/**
 * Collects every missing or malformed argument of a command, then fails once naming them all
 * (a user fixes the whole command line in one go, not one flag per run).
 */
export class Args {
  private readonly missing: string[] = [];
  private readonly invalid: string[] = [];
  constructor(private readonly opts: Opts) {}

  /** A required string option; '' when missing (done() then fails). */
  need(key: string, flag: string): string {
    const v = this.opts[key];
    if (typeof v !== 'string' || v === '') {
      this.missing.push(flag);
      return '';
    }
    return v;
  }

  /** A required repeatable option. */
  needMany(key: string, flag: string): string[] {
    const v = this.opts[key] as string[] | undefined;
    if (!v || v.length === 0) this.missing.push(flag);
    return v ?? [];
  }

  optional(key: string): string | undefined {
    const v = this.opts[key];
    return v === undefined ? undefined : String(v);
  }

  /** The value must be one of `allowed` (checked only when present). */
  oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
    if (value === undefined || value === '') return undefined;
    if (!(allowed as readonly string[]).includes(value)) this.invalid.push(`${flag} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value as T;
  }

  /** A comma-separated id list; null when absent. */
  list(key: string, flag: string): string[] | null {
    const raw = this.opts[key];
    if (raw === undefined) return null;
    const items = String(raw)
      .split(',')
      .map((s) => s.trim());
    if (items.some((s) => s === '')) this.invalid.push(`${flag} must be a comma-separated list of ids without empty entries`);
    return items;
  }

  /** --api-policy: a JSON object of product.api overrides; undefined when absent. */
  apiPolicy(key = 'apiPolicy'): Partial<ApiPolicy> | undefined {
    const raw = this.opts[key];
    if (raw === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(raw));
    } catch (err) {
      this.invalid.push(`--api-policy is not valid JSON: ${(err as Error).message}`);
      return undefined;
    }
    const problems = validateApiPolicyOverrides(parsed);
    if (problems.length) this.invalid.push(`--api-policy: ${problems.join('; ')}`);
    return parsed as Partial<ApiPolicy>;
  }

  problem(message: string): void {
    this.invalid.push(message);
  }

  /** Throws one CliError naming every problem found so far. */
  done(): void {
    const all = [...(this.missing.length ? [`missing ${this.missing.join(', ')}`] : []), ...this.invalid];
    if (all.length) throw new CliError(all.join('; '));
  }
}

/**
 * The parent a list command names (`--workspace` or `--site`), which must exist: an unknown id is
 * NOT_FOUND rather than an empty list that would hide a typo.
 */
export async function listParent(catalog: CatalogStore, opts: Opts, parent: 'workspace' | 'site'): Promise<string> {
  const a = new Args(opts);
  const id = a.need(parent, `--${parent} <id>`);
  a.done();
  const found = parent === 'workspace' ? await catalog.getWorkspace(id) : await catalog.getSite(id);
  if (!found) throw new CatalogError('NOT_FOUND', `unknown ${parent} "${id}"`);
  return id;
}
