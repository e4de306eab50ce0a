// A picker instead of a typed id: a text field whose suggestions come from the workspace's search (one kind of
// entity), shown by the browser's own list (keyboard-operable, no script-driven popup).
import { useEffect, useState } from 'preact/hooks';
import type { SearchKind } from '../../../shared/admin.ts';
import { api } from '../lib/api.ts';
import { useDebounced } from '../lib/use.ts';

export function Picker({
  id,
  kind,
  value,
  onInput,
  placeholder,
  apiKey,
}: {
  id: string;
  kind: SearchKind;
  value: string;
  onInput: (v: string) => void;
  placeholder?: string;
  apiKey?: string;
}) {
  const [options, setOptions] = useState<Array<{ id: string; label: string }>>([]);
  const q = useDebounced(value.trim(), 200);
  useEffect(() => {
    if (!q) return setOptions([]);
    let stale = false;
    api.search(q).then(
      (answer) =>
        !stale && setOptions(answer.items.filter((h) => h.kind === kind && (!apiKey || h.apiKey === apiKey)).map((h) => ({ id: h.id, label: h.label }))),
      () => undefined,
    );
    return () => void (stale = true);
  }, [q, kind, apiKey]);
  return (
    <>
      <input
        id={id}
        list={`${id}-options`}
        value={value}
        placeholder={placeholder}
        autocomplete="off"
        onInput={(e) => onInput((e.target as HTMLInputElement).value)}
      />
      <datalist id={`${id}-options`}>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
          </option>
        ))}
      </datalist>
    </>
  );
}
