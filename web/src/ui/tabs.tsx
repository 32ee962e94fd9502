// Tabs as the ARIA authoring practices describe them: one tab stop, arrow keys (and Home/End) move
// between tabs and select them, the panel is labelled by its tab.
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

export function Tabs({
  id,
  labels,
  selected,
  onSelect,
  children,
}: {
  id: string;
  labels: readonly string[];
  selected: number;
  onSelect(i: number): void;
  children: ComponentChildren;
}) {
  const list = useRef<HTMLDivElement>(null);
  const move = (i: number) => {
    const n = (i + labels.length) % labels.length;
    onSelect(n);
    list.current?.querySelectorAll<HTMLButtonElement>('[role=tab]')[n]?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    const to = { ArrowRight: selected + 1, ArrowLeft: selected - 1, Home: 0, End: labels.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    move(to);
  };
  return (
    <>
      <div class="tabs" role="tablist" ref={list} onKeyDown={onKey}>
        {labels.map((label, i) => (
          <button
            key={label}
            type="button"
            role="tab"
            id={`${id}-tab-${i}`}
            aria-selected={i === selected}
            aria-controls={`${id}-tabpanel`}
            tabIndex={i === selected ? 0 : -1}
            onClick={() => onSelect(i)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-tabpanel`} aria-labelledby={`${id}-tab-${selected}`}>
        {children}
      </div>
    </>
  );
}
