// When the page has its numbers: every tile shows a value (or the API's refusal) and no panel is
// waiting for an answer. The dashboard's element then carries `data-ready`, and the first time it
// happens after the page loaded the performance mark `footfall:dashboard-ready` is made, so a test or
// the bench (bench/dashboard.ts) reads "time to numbers" from the page itself.
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

export const READY_MARK = 'footfall:dashboard-ready';

function hasNumbers(root: HTMLElement): boolean {
  if (root.querySelector('[aria-busy="true"]')) return false;
  const tiles = root.querySelectorAll('.tile');
  return tiles.length > 0 && [...tiles].every((t) => t.hasAttribute('data-value') || t.querySelector('.tile-problem'));
}

export function useReadyMark(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const check = () => {
      const ready = hasNumbers(root);
      if (ready && root.dataset.ready === undefined) {
        root.dataset.ready = '';
        if (performance.getEntriesByName(READY_MARK, 'mark').length === 0) performance.mark(READY_MARK);
      } else if (!ready && root.dataset.ready !== undefined) {
        delete root.dataset.ready;
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-busy', 'data-value'] });
    check();
    return () => observer.disconnect();
  }, []);
}
