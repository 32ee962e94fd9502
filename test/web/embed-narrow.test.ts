// The embed in a narrow column (335 px, a phone's width less a host page's margins) in Chromium against a
// real server: every tab label and every goal name is there to read, whole (no "Exit pag"), and nothing
// is wider than the page; a section counted only from the site's first data says from which day. axe-core
// finds nothing serious; screenshots (light and dark) to test-results/screenshots/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { axeViolations, missing, SCREENSHOTS, settled, skip } from './dashboard-world.js';
import { embedWorld, type EmbedWorld } from './embed-world.js';

let w: EmbedWorld;
const GOAL = 'Reached the annual plan checkout page from a newsletter';
before(async () => {
  if (skip) return;
  w = await embedWorld();
  await w.server.container.catalog.createGoal({
    siteId: w.site,
    name: GOAL,
    type: 'PAGEVIEW_MATCH',
    intent: 'lead',
    pattern: '/acme-home',
    filters: {},
  });
});
after(async () => {
  await w?.close();
});

test('at 335 px the embed shows every tab label and goal name whole, and nothing overflows the page', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the embed tests: ${missing}`);
  for (const theme of ['light', 'dark'] as const) {
    const { context, page, console } = await w.newPage({ width: 335, scheme: theme });
    await page.goto(w.embedUrl(w.mint(w.tenants.acme), { theme }));
    await settled(page);
    // each tab's label fits its tab, and each tab lies inside its panel (none cut off at the edge)
    const tabs = await page.$$eval('[role="tab"]', (els) =>
      els.map((t) => {
        const panel = t.closest('.panel')!.getBoundingClientRect();
        const box = t.getBoundingClientRect();
        return {
          label: t.textContent,
          clipped: t.scrollWidth > t.clientWidth,
          outside: box.right > panel.right + 0.5 || box.left < panel.left - 0.5,
        };
      }),
    );
    assert.ok(tabs.length >= 11, `the top lists' tabs: ${tabs.length}`);
    assert.deepEqual(
      tabs.filter((t) => t.clipped || t.outside),
      [],
      `${theme}: tabs cut off`,
    );
    // the goal's name, whole: not cut by an ellipsis
    const goal = page.locator('[data-panel="goals"] tbody .row-key');
    await goal.waitFor();
    assert.equal(await goal.textContent(), GOAL);
    assert.ok(await goal.evaluate((el) => el.scrollWidth <= el.clientWidth), `${theme}: the goal's name is cut`);
    // an action's name and detail, whole: not cut by an ellipsis
    const actions = page.locator('[data-panel="actions"] tbody .row-key');
    await actions.first().waitFor();
    assert.deepEqual(
      await actions.evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth).map((el) => el.textContent)),
      [],
      `${theme}: an action's name is cut`,
    );
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${theme}: ${overflow}px wider than the page`);
    assert.deepEqual(await axeViolations(page), [], theme);
    assert.deepEqual(
      console.filter((m) => /Refused|Content Security Policy|pageerror/.test(m)),
      [],
    );
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `embed-narrow-${theme}-335.png`), fullPage: true });
    await context.close();
  }
});
