// The catalog commands (docs/product.md §2): the CLI stands in for the dashboard that manages
// the control plane. One file per resource; this registers them all.
import type { Command } from 'commander';
import { registerWorkspaceCommands } from './workspace-commands.js';
import { registerSiteCommands } from './site-commands.js';
import { registerTenantCommands } from './tenant-commands.js';
import { registerGoalCommands } from './goal-commands.js';
import { registerFunnelCommands } from './funnel-commands.js';
import { registerTokenCommands } from './token-commands.js';
import { registerUserCommands } from './user-commands.js';
import { registerEmbedCommands } from './embed-commands.js';
import { registerReportCommands } from './report-commands.js';

export function registerCatalogCommands(program: Command): void {
  registerWorkspaceCommands(program);
  registerSiteCommands(program);
  registerTenantCommands(program);
  registerGoalCommands(program);
  registerFunnelCommands(program);
  registerTokenCommands(program);
  registerUserCommands(program);
  registerEmbedCommands(program);
  registerReportCommands(program);
}
