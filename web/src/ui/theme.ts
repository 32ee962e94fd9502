// Light and dark: the page follows the system's preference, an embed may fix one (`theme=light|dark`)
// and its accent colour (`accent=` three or six hex digits). The chart, drawn on a canvas, reads the
// same colours from the style sheet and redraws when the scheme changes.
import { signal } from '@preact/signals';

/** Bumped when the colours change, so canvases redraw. */
export const themeVersion = signal(0);

export function applyTheme(search: string): void {
  const q = new URLSearchParams(search);
  const theme = q.get('theme');
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  const accent = q.get('accent')?.replace(/^#/, '');
  if (accent && /^([0-9a-f]{3}|[0-9a-f]{6})$/i.test(accent)) root.style.setProperty('--accent', `#${accent}`);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    themeVersion.value++;
  });
}

let probe: HTMLElement | null = null;

/**
 * A colour of the style sheet's custom properties as the canvas needs it (e.g. cssColor('--accent')):
 * resolved by the browser for the scheme in force, since the property itself holds light-dark(...).
 */
export function cssColor(name: string): string {
  if (!probe) {
    probe = document.createElement('span');
    probe.hidden = true;
    document.body.append(probe);
  }
  probe.style.color = `var(${name})`;
  return getComputedStyle(probe).color;
}
