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

/** A colour of the style sheet's custom properties, e.g. cssColor('--accent'). */
export function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
