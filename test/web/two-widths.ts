// Screenshots of a page at 1400 and 375 px for a person to look at (test-results/screenshots/<name>-<width>.png),
// and at 375 px the check that nothing is wider than the phone (a message pushed out of the layout shows as a
// wider page).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { SCREENSHOTS } from './dashboard-world.js';

export async function twoWidths(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const before = page.viewportSize() ?? { width: 1400, height: 900 };
  for (const width of [1400, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 375, `${name}: ${wide} px wide at 375 px`);
  await page.setViewportSize(before);
}
