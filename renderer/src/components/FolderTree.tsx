import type { FolderItem } from '../../../shared/admin.ts';

/** The folder tree of an organization; each folder links to the documents list filtered to it. */
export function FolderTree({ folders, hrefOf, current }: { folders: FolderItem[]; hrefOf: (folderId: string) => string; current: string | null }) {
  const ids = new Set(folders.map((f) => f.id));
  const children = new Map<string | null, FolderItem[]>();
  for (const f of folders) {
    const parent = f.parentId && ids.has(f.parentId) ? f.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), f]);
  }
  const branch = (parent: string | null, depth: number) => {
    const list = children.get(parent);
    if (!list || depth > 40) return null;
    return (
      <ul class={depth === 0 ? 'tree' : undefined}>
        {list.map((f) => (
          <li key={f.id}>
            <a href={hrefOf(f.id)} aria-current={current === f.id ? 'true' : undefined} data-folder={f.id}>
              {f.name || f.id}/
            </a>{' '}
            <span class="muted">{f.accessType}</span>
            {branch(f.id, depth + 1)}
          </li>
        ))}
      </ul>
    );
  };
  return folders.length ? branch(null, 0) : <p class="muted">No folders.</p>;
}
