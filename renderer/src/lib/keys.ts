// The workspace's API keys, loaded once per session: most pages are per key (/k/:apiKey/…).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { KeyItem } from '../../../shared/admin.ts';

export interface Session {
  workspaceId: string;
  keys: KeyItem[];
  reloadKeys: () => Promise<void>;
}

export const SessionContext = createContext<Session>({ workspaceId: '', keys: [], reloadKeys: async () => undefined });
export const useSession = () => useContext(SessionContext);
export const keyLabel = (k: KeyItem) => `${k.name || k.apiKey} (${k.type}${k.disabled ? ', disabled' : ''})`;
