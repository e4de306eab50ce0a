// Every entity's page, in one place: the palette, breadcrumbs and cross-links all build URLs here.
import { href } from './router.ts';

export const links = {
  dashboard: () => '/',
  key: (apiKey: string) => href('k', apiKey),
  organizations: (apiKey: string) => href('k', apiKey, 'organizations'),
  organization: (apiKey: string, organizationId: string) => href('k', apiKey, 'organizations', organizationId),
  folder: (apiKey: string, organizationId: string, folderId: string) =>
    `${href('k', apiKey, 'organizations', organizationId)}?folder=${encodeURIComponent(folderId)}`,
  document: (apiKey: string, organizationId: string, documentId: string, tab?: string) =>
    href('k', apiKey, 'organizations', organizationId, 'documents', documentId) + (tab ? `?tab=${encodeURIComponent(tab)}` : ''),
  users: (apiKey: string) => href('k', apiKey, 'users'),
  user: (apiKey: string, userId: string) => href('k', apiKey, 'users', userId),
  crdtList: (apiKey: string) => href('k', apiKey, 'live'),
  crdt: (apiKey: string, organizationId: string, documentId: string, editorId: string) => href('k', apiKey, 'live', organizationId, documentId, editorId),
  webhooks: (apiKey: string) => href('k', apiKey, 'webhooks'),
  endpoint: (apiKey: string, endpointId: string) => href('k', apiKey, 'webhooks', endpointId),
  deliveries: (state?: string) => `/deliveries${state ? `?state=${encodeURIComponent(state)}` : ''}`,
  requests: () => '/requests',
  request: (id: number) => href('requests', String(id)),
  explorer: (op?: string, apiKey?: string, data?: unknown) => {
    const q = new URLSearchParams();
    if (op) q.set('op', op);
    if (apiKey) q.set('key', apiKey);
    if (data !== undefined) q.set('data', JSON.stringify(data));
    const text = q.toString();
    return `/explorer${text ? `?${text}` : ''}`;
  },
  mailbox: () => '/mailbox',
  mail: (id: string) => href('mailbox', id),
  workspace: () => '/workspace',
  data: () => '/data',
  operations: () => '/operations',
};
