import type { UserItem } from '../../../shared/admin.ts';
import { OpForm } from '../components/Edit.tsx';
import { Picker } from '../components/Picker.tsx';
import { Table } from '../components/Table.tsx';
import { PageHead, Section } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { links } from '../lib/links.ts';
import { navigate, type Params } from '../lib/router.ts';

export default function Users({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  return (
    <>
      <PageHead title="Users" crumbs={[{ label: `Key ${apiKey}`, href: links.key(apiKey) }, { label: 'Users' }]} />
      <Table<UserItem>
        id="users"
        caption="Users of this API key"
        search="Search: id, name or e-mail"
        deps={[apiKey]}
        load={(a) => api.users({ apiKey, ...a, sort: a.sort === 'name' ? 'name' : 'id' })}
        rowKey={(u) => u.id}
        rowData={(u) => ({ user: u.id })}
        columns={[
          { id: 'id', label: 'Id', sort: 'id', class: 'id', render: (u) => <a href={links.user(apiKey, u.id)}>{u.id}</a> },
          { id: 'name', label: 'Name', sort: 'name', render: (u) => u.name ?? '' },
          { id: 'email', label: 'E-mail', render: (u) => u.email ?? '' },
        ]}
      />
      <Section title="Add a user" id="user-new">
        <OpForm
          id="user-create"
          apiKey={apiKey}
          op="/v2/users/add"
          at={['users']}
          fields={['userId', 'name', 'email', 'accessRole']}
          build={({ organizationId, ...user }) => ({ organizationId, users: [user] })}
          submitLabel="Add the user"
          done={(v) => `Added ${String(v.userId)} to ${String(v.organizationId)}.`}
          onDone={(v) => navigate(links.user(apiKey, String(v.userId)))}
          extra={(v, set) => (
            <label for="user-create-org">
              <span>
                organizationId <span class="required">*</span> <span class="field-hint">— the organization they join (users belong to one or more)</span>
              </span>
              <Picker
                id="user-create-org"
                kind="organization"
                apiKey={apiKey}
                value={typeof v.organizationId === 'string' ? v.organizationId : ''}
                placeholder="organization id or name"
                onInput={(organizationId) => set({ ...v, organizationId })}
              />
            </label>
          )}
        />
      </Section>
    </>
  );
}
