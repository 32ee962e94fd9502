// What the catalog commands print: the records as the management API answers them (one shape for
// both), and the text output's lines.
export { funnelJson, goalJson, siteJson, tenantJson, tokenJson, workspaceJson } from '../services/manage/records-json.js';

/** One line per record for the text output; an empty list says so. */
export function lines<T>(items: T[], none: string, line: (item: T) => string): string {
  return items.length ? items.map(line).join('\n') : none;
}
