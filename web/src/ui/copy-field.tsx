// A value to copy (a script tag, a DNS record, a secret shown once): the text itself, selectable, and a
// button that copies it and says so. Where the clipboard is refused, the text is selected instead.
import { useRef, useState } from 'preact/hooks';

export function CopyField({ label, value, block = false }: { label: string; value: string; block?: boolean }) {
  const text = useRef<HTMLElement>(null);
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copied.');
    } catch {
      const range = document.createRange();
      if (text.current) range.selectNodeContents(text.current);
      const selection = getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      setSaid('Selected: copy it with Ctrl+C or ⌘C.');
    }
  };
  return (
    <div class={`copy-field${block ? ' block' : ''}`}>
      <span class="field-label">{label}</span>
      <div class="copy-row">
        <code ref={text} class="copy-value" data-copy={label}>
          {value}
        </code>
        <button type="button" class="button secondary" onClick={copy} aria-label={`Copy ${label.toLowerCase()}`}>
          Copy
        </button>
      </div>
      <span class="copy-said" role="status">
        {said}
      </span>
    </div>
  );
}
