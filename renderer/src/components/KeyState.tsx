// A key's state (enabled or disabled by the workspace's admin) and the button that changes it: used on the
// Workspace page's key list and on the key's own page.
import type { KeyItem } from '../../../shared/admin.ts';
import { api } from '../lib/api.ts';
import { useSession } from '../lib/keys.ts';
import { time } from '../lib/format.ts';
import { Badge } from './ui.tsx';

export function KeyStateBadge({ k }: { k: KeyItem | undefined }) {
  if (!k) return null;
  return k.disabled ? <Badge tone="bad">{`disabled${k.disabledAt ? ` since ${time(k.disabledAt)}` : ''}`}</Badge> : <Badge tone="ok">enabled</Badge>;
}

/** Disable (after a confirmation: its apps stop working at once) or enable the key; `tell` reports the outcome. */
export function KeyStateButton({ k, tell, id }: { k: KeyItem | undefined; tell: (ok: boolean, text: string) => void; id?: string }) {
  const session = useSession();
  if (!k) return null;
  const change = async () => {
    const disable = !k.disabled;
    if (
      disable &&
      !confirm(
        `Disable the API key ${k.name || k.apiKey}? Every call and websocket with it is refused, and its open connections are closed, until it is enabled again.`,
      )
    )
      return;
    try {
      await api.setKeyDisabled(k.apiKey, disable);
      tell(true, disable ? `API key ${k.apiKey} disabled.` : `API key ${k.apiKey} enabled.`);
    } catch (error) {
      tell(false, error instanceof Error ? error.message : String(error));
    }
    await session.reloadKeys();
  };
  return (
    <button
      type="button"
      class={`small ${k.disabled ? '' : 'danger'}`}
      id={id}
      data-key-state={k.disabled ? 'disabled' : 'enabled'}
      onClick={() => void change()}
    >
      {k.disabled ? 'Enable' : 'Disable'}
    </button>
  );
}
