// The organization page's editing: the organization itself (rename, disable, delete), its folders (create, rename,
// move, delete), new documents, user groups and their members, and memberships with roles. Every change is an
// operation call (components/Edit.tsx).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { FolderItem, MembershipItem, OrganizationAnswer } from '../../../shared/admin.ts';
import { ConfirmButton, OpButton, OpForm, perform } from '../components/Edit.tsx';
import { ErrorBox } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { links } from '../lib/links.ts';
import { navigate } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';

const ROLES = ['viewer', 'editor'] as const;
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Rename, disable or enable, delete (asking first, with what goes with it). */
export function OrganizationSettings({ apiKey, o, onChanged }: { apiKey: string; o: OrganizationAnswer; onChanged: () => void }) {
  const organizationId = o.organization.id;
  const disabled = o.organization.disabled;
  return (
    <div class="stack" id="organization-edit">
      <OpForm
        id="org-rename"
        apiKey={apiKey}
        op="/v2/organizations/update"
        at={['organizations']}
        fields={['organizationName']}
        initial={{ organizationName: o.organization.name ?? '' }}
        keep
        undo
        build={(v) => ({ organizations: [{ organizationId, ...v }] })}
        submitLabel="Rename"
        done={(v) => `Renamed to “${String(v.organizationName ?? '')}”.`}
        onDone={onChanged}
      />
      <div class="row">
        <OpButton
          id="org-disable"
          label={disabled ? 'Enable' : 'Disable (read-only)'}
          run={() => perform('/v2/organizations/access/disablestate/update', apiKey, { organizationIds: [organizationId], disabled: !disabled })}
          done={disabled ? 'Enabled.' : 'Disabled: read-only for everyone.'}
          onDone={onChanged}
        />
        <ConfirmButton
          id="org-delete"
          label="Delete organization"
          title={`Delete organization ${organizationId}?`}
          confirmLabel="Delete it and everything in it"
          details={() => (
            <p id="org-delete-what">
              This deletes {organizationId} with {plural(o.counts.documents, 'document')}, {plural(o.folders.length, 'folder')},{' '}
              {plural(o.groups.length, 'user group')} and {plural(o.counts.members, 'membership')}. It cannot be undone.
            </p>
          )}
          action={() => perform('/v2/organizations/delete', apiKey, { organizationIds: [organizationId] })}
          onDone={() => navigate(links.organizations(apiKey))}
        />
      </div>
    </div>
  );
}

/** The folder and every folder under it. */
function subtree(folders: FolderItem[], id: string): FolderItem[] {
  const out: FolderItem[] = [];
  const walk = (parent: string) => {
    for (const f of folders)
      if (f.parentId === parent) {
        out.push(f);
        walk(f.id);
      }
  };
  const self = folders.find((f) => f.id === id);
  if (self) out.push(self);
  walk(id);
  return out;
}

/** What deleting a folder takes with it: its subfolders and their documents (up to 50 listed per folder). */
async function folderContents(apiKey: string, organizationId: string, folders: FolderItem[], folderId: string): Promise<ComponentChildren> {
  const tree = subtree(folders, folderId).slice(0, 20);
  const pages = await Promise.all(tree.map((f) => api.documents({ apiKey, organizationId, folderId: f.id, limit: 50 })));
  const docs = pages.flatMap((p) => p.items);
  const more = pages.some((p) => p.nextCursor) || subtree(folders, folderId).length > tree.length;
  const subfolders = tree.slice(1);
  return (
    <div id="folder-delete-what">
      <p>
        This deletes folder {folderId}
        {subfolders.length ? `, its ${plural(subfolders.length, 'subfolder')} (${subfolders.map((f) => f.name || f.id).join(', ')})` : ''} and{' '}
        {docs.length === 0 ? 'no documents (it has none).' : `${more ? 'at least ' : ''}${plural(docs.length, 'document')} with their memberships:`}
      </p>
      {docs.length > 0 && (
        <ul class="confirm-list">
          {docs.map((d) => (
            <li key={d.id} data-document={d.id}>
              {d.name ? `${d.name} (${d.id})` : d.id}
            </li>
          ))}
          {more && <li>… and more</li>}
        </ul>
      )}
    </div>
  );
}

/** A new folder (under the folder being shown), and the shown folder's rename, move and delete. */
export function FolderEdit({
  apiKey,
  organizationId,
  folders,
  current,
  onChanged,
}: {
  apiKey: string;
  organizationId: string;
  folders: FolderItem[];
  current: string | null;
  onChanged: () => void;
}) {
  const folder = current ? folders.find((f) => f.id === current) : undefined;
  const inside = new Set(current ? subtree(folders, current).map((f) => f.id) : []);
  return (
    <div class="stack" id="folder-edit">
      {folder && (
        <>
          <OpForm
            id="folder-update"
            title={`Folder ${folder.name || folder.id}`}
            apiKey={apiKey}
            op="/v2/organizations/folders/update"
            at={['folders']}
            fields={['folderName']}
            initial={{ folderName: folder.name ?? '' }}
            keep
            build={(v) => ({ organizationId, folders: [{ folderId: folder.id, ...v }] })}
            submitLabel="Rename or move"
            done={(v) => (v.parentFolderId ? `Moved under ${String(v.parentFolderId)}.` : 'Saved.')}
            onDone={onChanged}
            extra={(v, set) => (
              <label for="folder-parent">
                <span>parentFolderId — move under</span>
                <select
                  id="folder-parent"
                  value={typeof v.parentFolderId === 'string' ? v.parentFolderId : ''}
                  onChange={(e) => {
                    const next = { ...v };
                    const chosen = (e.target as HTMLSelectElement).value;
                    if (chosen) next.parentFolderId = chosen;
                    else delete next.parentFolderId;
                    set(next);
                  }}
                >
                  <option value="">(stays where it is)</option>
                  <option value="root">root (the top level)</option>
                  {folders
                    .filter((f) => !inside.has(f.id))
                    .map((f) => (
                      <option key={f.id} value={f.id}>
                        {f.name ? `${f.name} (${f.id})` : f.id}
                      </option>
                    ))}
                </select>
              </label>
            )}
          />
          <ConfirmButton
            id="folder-delete"
            label="Delete folder"
            title={`Delete folder ${folder.name || folder.id}?`}
            confirmLabel="Delete the folder and its documents"
            details={() => folderContents(apiKey, organizationId, folders, folder.id)}
            action={() => perform('/v2/organizations/folders/delete', apiKey, { organizationId, folderId: folder.id })}
            onDone={() => {
              onChanged();
              navigate(links.organization(apiKey, organizationId));
            }}
          />
        </>
      )}
      <OpForm
        id="folder-create"
        title={folder ? `New folder in ${folder.name || folder.id}` : 'New folder'}
        apiKey={apiKey}
        op="/v2/organizations/folders/add"
        at={['folders']}
        fields={['folderId', 'folderName', 'accessType']}
        build={(v) => ({ organizationId, folders: [{ ...v, ...(folder ? { parentFolderId: folder.id } : {}) }] })}
        submitLabel="Create folder"
        done={(v) => `Created folder ${String(v.folderId)}.`}
        onDone={onChanged}
      />
    </div>
  );
}

/** A new document, in the folder being shown (or at the top level). */
export function NewDocument({
  apiKey,
  organizationId,
  folder,
  onChanged,
}: {
  apiKey: string;
  organizationId: string;
  folder: string | null;
  onChanged: () => void;
}) {
  return (
    <details class="edit" id="document-new">
      <summary>New document{folder ? ` in ${folder}` : ''}</summary>
      <OpForm
        id="document-create"
        apiKey={apiKey}
        op="/v2/organizations/documents/add"
        at={['documents']}
        fields={['documentId', 'documentName', 'accessType']}
        build={(v) => ({ organizationId, ...(folder ? { folderId: folder } : {}), documents: [v] })}
        submitLabel="Create document"
        done={(v) => `Created document ${String(v.documentId)}.`}
        onDone={onChanged}
      />
    </details>
  );
}

/**
 * The organization's user groups (from the organization's own answer), and their editing: create a group, add
 * members, remove one (asking first). The members' ids are read only once the editor is opened: the organization
 * page's first paint does not wait on them.
 */
export function Groups({
  apiKey,
  organizationId,
  groups,
  version,
  onChanged,
}: {
  apiKey: string;
  organizationId: string;
  groups: OrganizationAnswer['groups'];
  version: number;
  onChanged: () => void;
}) {
  const [editing, setEditing] = useState(false);
  return (
    <>
      {groups.length === 0 ? (
        <p class="muted">No user groups.</p>
      ) : (
        <ul id="group-list">
          {groups.map((g) => (
            <li key={g.id} data-group={g.id}>
              {g.name || g.id} <span class="muted">({g.members} members)</span>
            </li>
          ))}
        </ul>
      )}
      <details class="edit" id="groups-edit" onToggle={(e) => setEditing((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>Edit groups and their members</summary>
        {editing && <GroupEditor apiKey={apiKey} organizationId={organizationId} version={version} onChanged={onChanged} />}
      </details>
    </>
  );
}

function GroupEditor({ apiKey, organizationId, version, onChanged }: { apiKey: string; organizationId: string; version: number; onChanged: () => void }) {
  const tree = useLoad(() => api.organizationTree(apiKey, organizationId), [apiKey, organizationId, version]);
  const groups = tree.data?.groups ?? [];
  return (
    <>
      <ErrorBox error={tree.error} />
      {groups.length > 0 && (
        <ul id="group-members" class="groups">
          {groups.map((g) => (
            <li key={g.id} data-group={g.id}>
              <strong>{g.name || g.id}</strong>
              <ul class="group-members">
                {g.userIds.map((userId) => (
                  <li key={userId} data-member={userId}>
                    <a href={links.user(apiKey, userId)}>{userId}</a>{' '}
                    <ConfirmButton
                      id={`group-${g.id}-remove-${userId}`}
                      label="Remove"
                      title={`Remove ${userId} from group ${g.name || g.id}?`}
                      confirmLabel="Remove from the group"
                      details={() => <p>{userId} stays a user of the organization; only the group membership goes.</p>}
                      action={() =>
                        perform('/v2/organizations/usergroups/users/delete', apiKey, { organizationId, organizationUserGroupId: g.id, userIds: [userId] })
                      }
                      onDone={onChanged}
                    />
                  </li>
                ))}
              </ul>
              <OpForm
                id={`group-${g.id}-add`}
                apiKey={apiKey}
                op="/v1/organizations/usergroups/users/add"
                fields={['userIds']}
                build={(v) => ({ organizationId, organizationUserGroupId: g.id, ...v })}
                submitLabel="Add to group"
                done={(v) => `Added ${String(v.userIds ?? '')} to ${g.id}.`}
                onDone={onChanged}
              />
            </li>
          ))}
        </ul>
      )}
      <OpForm
        id="group-create"
        title="New user group"
        apiKey={apiKey}
        op="/v2/organizations/usergroups/add"
        at={['organizationUserGroups']}
        fields={['groupId', 'groupName']}
        build={(v) => ({ organizationId, organizationUserGroups: [v] })}
        submitLabel="Create group"
        done={(v) => `Created group ${String(v.groupId)}.`}
        onDone={onChanged}
      />
    </>
  );
}

/** A user added to the organization with a role (users/add at the organization's level). */
export function NewMember({ apiKey, organizationId, onChanged }: { apiKey: string; organizationId: string; onChanged: () => void }) {
  return (
    <details class="edit" id="member-new">
      <summary>Add a member</summary>
      <OpForm
        id="member-add"
        apiKey={apiKey}
        op="/v2/users/add"
        at={['users']}
        fields={['userId', 'name', 'email', 'accessRole']}
        build={(v) => ({ organizationId, users: [v] })}
        submitLabel="Add to the organization"
        done={(v) => `Added ${String(v.userId)}.`}
        onDone={onChanged}
      />
    </details>
  );
}

/** The level of a membership as the users operations name it. */
export const levelOf = (m: { level: string; resourceId: string }) =>
  m.level === 'document' ? { documentId: m.resourceId } : m.level === 'folder' ? { folderId: m.resourceId } : {};

/** A membership's role (changed at once: viewer and editor both keep the user in) and its removal (asking first). */
export function MemberActions({ apiKey, m, onChanged }: { apiKey: string; m: MembershipItem; onChanged: () => void }) {
  const where = m.level === 'organization' ? `organization ${m.organizationId}` : `${m.level} ${m.resourceId}`;
  const name = `${m.userId}-${m.level}-${m.resourceId}`.replace(/[^\w-]/g, '_');
  const [error, setError] = useState<string | null>(null);
  return (
    <span class="row member-actions">
      <select
        aria-label={`Role of ${m.userId} on ${where}`}
        id={`role-${name}`}
        value={m.accessRole}
        onChange={async (e) => {
          const accessRole = (e.target as HTMLSelectElement).value;
          const outcome = await perform('/v2/users/update', apiKey, {
            organizationId: m.organizationId,
            ...levelOf(m),
            users: [{ userId: m.userId, accessRole }],
          });
          setError(outcome.ok ? null : outcome.message);
          if (outcome.ok) onChanged();
        }}
      >
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <ConfirmButton
        id={`remove-${name}`}
        label="Remove"
        title={`Remove ${m.userId} from ${where}?`}
        confirmLabel="Remove the membership"
        details={() => (
          <p>
            {m.level === 'organization'
              ? `${m.userId} loses access to every document and all data of ${m.organizationId}, and leaves its contact list.`
              : `${m.userId} loses the access this membership gives to ${where}.`}
          </p>
        )}
        action={() => perform('/v1/users/delete', apiKey, { organizationId: m.organizationId, ...levelOf(m), userIds: [m.userId] })}
        onDone={onChanged}
      />
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
