// What `npm start` tells a person once it listens (docs/product.md §1): where the dashboard and the
// API reference are, how to sign in as the demo owner, and how to get an API token. Plain text on
// stdout, written before the first request's log line.
import path from 'node:path';
import type { Config } from '../config/config.js';

export interface StartBanner {
  /** the demo was seeded by this start: its tokens and sign-in link were printed above */
  seeded: boolean;
  /** a new one-time sign-in link of the demo owner, when the store has that person */
  owner?: { email: string; signInUrl: string; expiresAt: string };
  /** a workspace whose plan gives API access, for the `token create` line */
  apiWorkspaceId?: string;
}

/**
 * A command to run beside this start, in the same folder: `--data-dir` when the data dir is not the
 * default one there. A shared control plane is named by its variable, never by its URL (which may
 * hold a password).
 */
export function footfallCommand(config: Pick<Config, 'dataDir' | 'controlUrl'>, words: string, cwd = process.cwd()): string {
  const dataDir = config.dataDir !== path.resolve(cwd, 'data') ? ` --data-dir ${quoted(config.dataDir)}` : '';
  return `npx footfall ${words}${dataDir}${config.controlUrl !== undefined ? '   (with the same FOOTFALL_CONTROL_URL)' : ''}`;
}

export function startBannerText(config: Pick<Config, 'dataDir' | 'controlUrl' | 'publicUrl'>, banner: StartBanner): string {
  const base = config.publicUrl;
  const lines = [`footfall is serving ${config.controlUrl !== undefined ? 'the shared control plane' : config.dataDir} at ${base}`];
  lines.push(`  Dashboard:      ${base}/app`);
  if (banner.owner) {
    lines.push(
      `    sign in as the demo owner ${banner.owner.email} with this one-time link, valid until ${banner.owner.expiresAt}:`,
      `      ${banner.owner.signInUrl}`,
      `    later: ${footfallCommand(config, `user reset-password --email ${banner.owner.email}`)}`,
    );
  } else if (banner.seeded) {
    lines.push("    sign in with the demo owner's one-time link printed above");
  } else {
    lines.push(`    a person's way in: ${footfallCommand(config, 'user invite --workspace WORKSPACE_ID --email EMAIL --role owner')}`);
  }
  lines.push(`  API reference:  ${base}/docs`);
  if (banner.seeded) lines.push('  API tokens:     the demo tokens printed above (their secrets are shown only once)');
  lines.push(
    `  ${banner.seeded ? 'another token: ' : 'API token:     '} ${footfallCommand(config, `token create --workspace ${banner.apiWorkspaceId ?? 'WORKSPACE_ID'} --scopes metrics:read,usage:read`)}`,
  );
  if (!banner.apiWorkspaceId)
    lines.push(`                  (a workspace on the starter, pro or enterprise plan: ${footfallCommand(config, 'workspace list')})`);
  return lines.join('\n');
}

function quoted(s: string): string {
  return /^[\w./:@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
