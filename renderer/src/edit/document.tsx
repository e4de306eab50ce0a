// The document page's editing: rename, access type, disabled state, move to a folder, delete (asking first, with
// what goes with it), and document memberships with roles. Every change is an operation call (components/Edit.tsx).
import { useState } from 'preact/hooks';
import type { DocumentAnswer } from '../../../shared/admin.ts';
import { ConfirmButton, OpButton, OpForm, perform, type Values } from '../components/Edit.tsx';
import { Picker } from '../components/Picker.tsx';
import { api } from '../lib/api.ts';
import { links } from '../lib/links.ts';
import { navigate } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export function DocumentSettings({ apiKey, d, onChanged }: { apiKey: string; d: DocumentAnswer; onChanged: () => void }) {
  const organizationId = d.document.organizationId;
  const documentId = d.document.id;
  const disabled = d.document.disabled;
  // the folders to move to are read once the editor is opened: the document page's first paint does not wait on them
  const [open, setOpen] = useState(false);
  const folders = useLoad(async () => (open ? (await api.organization(apiKey, organizationId)).folders : []), [apiKey, organizationId, open]);
  return (
    <details class="edit" id="document-edit" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Edit this document</summary>
      <div class="edit-grid">
        <OpForm
          id="doc-rename"
          apiKey={apiKey}
          op="/v2/organizations/documents/update"
          at={['documents']}
          fields={['documentName']}
          initial={{ documentName: d.document.name ?? '' }}
          keep
          undo
          build={(v) => ({ organizationId, documents: [{ documentId, ...v }] })}
          submitLabel="Rename"
          done={(v) => `Renamed to “${String(v.documentName ?? '')}”.`}
          onDone={onChanged}
        />
        <OpForm
          id="doc-access"
          apiKey={apiKey}
          op="/v2/organizations/documents/access/update"
          fields={['accessType']}
          initial={{ accessType: d.document.accessType }}
          keep
          undo
          build={(v) => ({ organizationId, documentIds: [documentId], ...v })}
          submitLabel="Set access type"
          done={(v) => `Access type: ${String(v.accessType)}.`}
          onDone={onChanged}
        />
        <OpForm
          id="doc-move"
          apiKey={apiKey}
          op="/v2/organizations/documents/move"
          fields={[]}
          initial={{ folderId: d.document.folderId ?? 'root' }}
          keep
          undo
          build={(v) => ({ organizationId, documentIds: [documentId], ...v })}
          submitLabel="Move"
          done={(v) => (v.folderId === 'root' ? 'Moved to the top level.' : `Moved to folder ${String(v.folderId)}.`)}
          onDone={onChanged}
          extra={(v, set) => (
            <label for="doc-move-folder">
              <span>folderId — move to</span>
              <select
                id="doc-move-folder"
                value={String(v.folderId ?? 'root')}
                onChange={(e) => set({ ...v, folderId: (e.target as HTMLSelectElement).value })}
              >
                <option value="root">root (the top level)</option>
                {(folders.data ?? []).map((f) => (
                  <option key={f.id} value={f.id}>
                    {f.name ? `${f.name} (${f.id})` : f.id}
                  </option>
                ))}
              </select>
            </label>
          )}
        />
        <div class="row">
          <OpButton
            id="doc-disable"
            label={disabled ? 'Enable' : 'Disable (read-only)'}
            run={() =>
              perform('/v2/organizations/documents/access/disablestate/update', apiKey, { organizationId, documentIds: [documentId], disabled: !disabled })
            }
            done={disabled ? 'Enabled.' : 'Disabled: read-only for everyone.'}
            onDone={onChanged}
          />
          <ConfirmButton
            id="doc-delete"
            label="Delete document"
            title={`Delete document ${d.document.name || documentId}?`}
            confirmLabel="Delete the document"
            details={() => (
              <p id="doc-delete-what">
                This deletes {documentId} with its memberships
                {d.editors.length ? `, ${plural(d.editors.length, 'collaborative editor')} (${d.editors.map((e) => e.editorId).join(', ')})` : ''},{' '}
                {plural(d.counts.comments, 'comment thread')}, {plural(d.counts.notifications, 'notification')} and {plural(d.counts.recordings, 'recording')}.
                It cannot be undone.
              </p>
            )}
            action={() => perform('/v2/organizations/documents/delete', apiKey, { organizationId, documentIds: [documentId] })}
            onDone={() => navigate(links.organization(apiKey, organizationId))}
          />
        </div>
      </div>
    </details>
  );
}

/** What the forms acting on one document take. */
interface OnDocument {
  apiKey: string;
  organizationId: string;
  documentId: string;
  onChanged: () => void;
}

/** A user given a role on this document (users/add at the document's level). */
export function NewDocumentMember({ apiKey, organizationId, documentId, onChanged }: OnDocument) {
  return (
    <OpForm
      id="doc-member-add"
      title="Give a user a role on this document"
      apiKey={apiKey}
      op="/v2/users/add"
      at={['users']}
      fields={['userId', 'accessRole']}
      build={(v) => ({ organizationId, documentId, users: [v] })}
      submitLabel="Add to the document"
      done={(v) => `${String(v.userId)} is a member of the document.`}
      onDone={onChanged}
    />
  );
}

/** A document membership's role and removal, on the access list's row of a user who has one. */
export function DocumentMemberActions({
  apiKey,
  organizationId,
  documentId,
  userId,
  role,
  onChanged,
}: {
  apiKey: string;
  organizationId: string;
  documentId: string;
  userId: string;
  role: string;
  onChanged: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  return (
    <span class="row member-actions">
      <select
        id={`doc-role-${userId.replace(/[^\w-]/g, '_')}`}
        aria-label={`Document role of ${userId}`}
        value={role}
        onChange={async (e) => {
          const outcome = await perform('/v2/users/update', apiKey, {
            organizationId,
            documentId,
            users: [{ userId, accessRole: (e.target as HTMLSelectElement).value }],
          });
          setError(outcome.ok ? null : outcome.message);
          if (outcome.ok) onChanged();
        }}
      >
        <option value="viewer">viewer</option>
        <option value="editor">editor</option>
      </select>
      <ConfirmButton
        id={`doc-remove-${userId.replace(/[^\w-]/g, '_')}`}
        label="Remove"
        title={`Remove ${userId} from this document?`}
        confirmLabel="Remove the document membership"
        details={() => <p>{userId} loses the access their document membership gives; memberships of the organization or a folder stay.</p>}
        action={() => perform('/v1/users/delete', apiKey, { organizationId, documentId, userIds: [userId] })}
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

/** A user id field with the workspace's users as suggestions (the form's value `name`). */
function UserField({
  id,
  name,
  label,
  hint,
  apiKey,
  values,
  set,
}: {
  id: string;
  name: string;
  label: string;
  hint: string;
  apiKey: string;
  values: Values;
  set: (v: Values) => void;
}) {
  return (
    <label for={id}>
      <span>
        {label} <span class="required">*</span> <span class="field-hint">— {hint}</span>
      </span>
      <Picker
        id={id}
        kind="user"
        apiKey={apiKey}
        value={typeof values[name] === 'string' ? (values[name] as string) : ''}
        placeholder="user id or name"
        onInput={(v) => set({ ...values, [name]: v })}
      />
    </label>
  );
}

/** Starts a comment thread on the document, as one user (commentannotations/add). */
export function NewCommentThread({ apiKey, organizationId, documentId, onChanged }: OnDocument) {
  return (
    <OpForm
      id="comment-create"
      title="Start a comment thread"
      apiKey={apiKey}
      op="/v2/commentannotations/add"
      at={['commentAnnotations', 'commentData']}
      fields={['commentText']}
      build={({ fromUserId, ...comment }) => ({
        organizationId,
        documentId,
        commentAnnotations: [{ commentData: [{ ...comment, from: { userId: fromUserId } }] }],
      })}
      submitLabel="Add the comment"
      done={(v) => `Comment thread started by ${String(v.fromUserId)}.`}
      onDone={onChanged}
      extra={(v, set) => <UserField id="comment-create-from" name="fromUserId" label="from.userId" hint="who writes it" apiKey={apiKey} values={v} set={set} />}
    />
  );
}

/** Sends a notification about the document to the users named, or to everyone with access (notifications/add). */
export function SendNotification({ apiKey, organizationId, documentId, onChanged }: OnDocument) {
  return (
    <OpForm
      id="notification-send"
      title="Send a notification"
      apiKey={apiKey}
      op="/v2/notifications/add"
      fields={['displayHeadlineMessageTemplate', 'displayBodyMessage', 'notifyAll']}
      initial={{ notifyUserIds: '' }}
      build={({ actionUserId, notifyUserIds, ...rest }) => ({
        organizationId,
        documentId,
        ...rest,
        actionUser: { userId: actionUserId },
        notifyUsers: String(notifyUserIds ?? '')
          .split(',')
          .map((userId) => userId.trim())
          .filter(Boolean)
          .map((userId) => ({ userId })),
      })}
      submitLabel="Send the notification"
      done={() => 'Notification sent.'}
      onDone={onChanged}
      extra={(v, set) => (
        <>
          <UserField id="notification-send-actor" name="actionUserId" label="actionUser.userId" hint="who it is from" apiKey={apiKey} values={v} set={set} />
          <label for="notification-send-to">
            <span>
              notifyUsers <span class="field-hint">— user ids, separated by commas (or check notifyAll)</span>
            </span>
            <input
              id="notification-send-to"
              value={String(v.notifyUserIds ?? '')}
              onInput={(e) => set({ ...v, notifyUserIds: (e.target as HTMLInputElement).value })}
            />
          </label>
        </>
      )}
    />
  );
}
