/**
 * The demo data set itself: organizations, people, folders, documents with Yjs content, comments, reactions,
 * recordings with their files, notifications and activity, written through the bulk writer row by row in the
 * shape the services write them (same columns, ids, JSON, derived fields). Every choice comes from one PRNG in a
 * fixed order, so the same random source and clock give the same rows.
 */
import { createHash } from 'node:crypto';
import * as Y from 'yjs';
import type { DocumentAccessType } from '../../shared/schemas/common.ts';
import { writeContent, type CrdtType } from '../crdt/content.ts';
import type { ApiKeyRow, BulkRow, BulkTable, BulkWriter } from '../db/repos/seed.ts';
import { deriveInitial, internalUserId } from '../services/users.ts';
import { writeComments, type Member } from './seed-comments.ts';
import type { SeedCounts } from './seed-options.ts';
import { screenPng, wavTone } from './seed-media.ts';
import {
  CHECKLIST_ITEMS,
  COMPANIES,
  documentTitle,
  FIRST_NAMES,
  LAST_NAMES,
  paragraph,
  sentence,
  slug,
  SUB_FOLDERS,
  TOP_FOLDERS,
  type Dice,
} from './seed-text.ts';

export const EDITOR_ID = 'main';
export const CONTENT_KEY = 'content';
const DAY = 24 * 3600 * 1000;

export interface SeededOrganization {
  id: string;
  name: string;
  documentIds: string[];
  crdtDocuments: Array<{ documentId: string; type: CrdtType }>;
}

export interface GeneratedSet {
  organizations: SeededOrganization[];
  userIds: string[];
  /** The recordings' attachment bytes, by storage key: stored by the caller (storage.attachments), removed again if the seed fails. */
  attachments: Array<{ key: string; bytes: Buffer }>;
  rows: Record<string, number>;
}

interface Doc {
  id: string;
  title: string;
  createdAt: number;
}

/** The ids of the set's organizations: drawn first, so a repeated seed is recognised before anything is written. */
export function planOrganizations(d: Dice, count: number) {
  const tag = d.lowerTag(4);
  const companies = d.sample(COMPANIES, Math.min(count, COMPANIES.length));
  return Array.from({ length: count }, (_, i) => {
    const [name, industry] = companies[i % companies.length] as readonly [string, string];
    const round = Math.floor(i / companies.length);
    const fullName = round === 0 ? name : `${name} ${round + 1}`;
    return { id: `${slug(fullName)}-${tag}`, name: fullName, industry, domain: `${slug(name)}.example`, tag };
  });
}

export function generateSet(input: {
  writer: BulkWriter;
  /** The key filled (its default access type decides most documents'). */
  apiKey: Pick<ApiKeyRow, 'id' | 'settings'>;
  d: Dice;
  now: number;
  counts: SeedCounts;
  plan: ReturnType<typeof planOrganizations>;
  progress: (units: number, label: string) => void;
  /** Filled as rows and files are written, so that a failed seed knows what to remove. */
  out: GeneratedSet;
}): void {
  const { writer, apiKey, d, now, counts, plan, progress, out } = input;
  const apiKeyId = apiKey.id;
  const { rows, attachments, organizations } = out;
  /** An inserter of the table's rows that counts them (the summary's rows, by table). */
  const put = <T extends BulkTable>(table: T) => {
    const insert = writer.into(table);
    rows[table] = 0;
    return (row: BulkRow<T>) => {
      insert(row);
      rows[table] = (rows[table] ?? 0) + 1;
    };
  };
  const insertOrganization = put('organizations');
  const insertUser = put('users');
  const insertMembership = put('memberships');
  const insertGroup = put('userGroups');
  const insertGroupMember = put('userGroupMembers');
  const insertFolder = put('folders');
  const insertDocument = put('documents');
  const insertCrdt = put('crdtDocuments');
  const insertActivity = put('activities');
  const insertNotification = put('notifications');
  const insertRecipient = put('notificationRecipients');
  const insertRecording = put('recordings');
  const insertAttachment = put('recordingAttachments');
  const when = (maxDaysAgo: number, minDaysAgo = 0) => Math.round(now - (minDaysAgo + d.random() * (maxDaysAgo - minDaysAgo)) * DAY);
  const activity = (row: Omit<BulkRow<'activities'>, 'apiKeyId' | 'id' | 'actionUserId' | 'resolver'>) =>
    insertActivity({ apiKeyId, id: d.alphanumeric(20), actionUserId: row.actionUser.userId, resolver: false, ...row });

  // People: a pool split over the organizations; some also belong to a second one (as viewers).
  const tag = plan[0]?.tag ?? 'demo';
  const poolSize = plan.length * counts.usersPerOrganization;
  const names: Array<[string, string]> = [];
  const taken = new Set<string>();
  while (names.length < poolSize) {
    const first = d.pick(FIRST_NAMES);
    const last = d.pick(LAST_NAMES);
    const base = `${first} ${last}`;
    const name = taken.has(base) ? `${base} ${names.length + 1}` : base;
    taken.add(name);
    names.push([name, slug(name)]);
  }
  const usersCreatedAt = now - 120 * DAY;
  const members = plan.map(() => [] as Member[]);
  names.forEach(([name, key], i) => {
    const home = Math.floor(i / counts.usersPerOrganization);
    const org = plan[home] as (typeof plan)[number];
    const user = { userId: `${key}-${tag}`, name, email: `${key.replace(/-/g, '.')}@${org.domain}` };
    insertUser({
      apiKeyId,
      id: user.userId,
      internalId: internalUserId(apiKeyId, user.userId),
      name,
      email: user.email,
      initial: deriveInitial(user),
      photoUrl: null,
      metadata: {},
      createdAt: usersCreatedAt,
      updatedAt: usersCreatedAt,
    });
    out.userIds.push(user.userId);
    members[home]?.push({ user, role: i % counts.usersPerOrganization === 0 || d.chance(0.75) ? 'editor' : 'viewer' });
    if (plan.length > 1 && d.chance(0.15)) members[(home + 1 + d.int(0, plan.length - 2)) % plan.length]?.push({ user, role: 'viewer' });
  });

  const docsByOrg: Doc[][] = [];
  const perOrg = (total: number, index: number) => Math.floor(total / plan.length) + (index < total % plan.length ? 1 : 0);
  const crdtTotal = Math.min(counts.crdtDocuments, counts.documents);

  plan.forEach((org, o) => {
    const orgMembers = members[o] as Member[];
    const createdAt = now - 90 * DAY;
    insertOrganization({
      apiKeyId,
      id: org.id,
      name: org.name,
      disabled: false,
      metadata: { industry: org.industry, seededBy: 'hearth seed' },
      createdAt,
      updatedAt: createdAt,
    });
    for (const m of orgMembers)
      insertMembership({
        apiKeyId,
        organizationId: org.id,
        level: 'organization',
        resourceId: org.id,
        userId: m.user.userId,
        accessRole: m.role,
        expiresAt: null,
        createdAt,
        updatedAt: createdAt,
      });
    for (const groupName of d.sample(['Core team', 'Reviewers', 'Leadership', 'Design guild', 'On-call'], 3)) {
      const groupId = slug(groupName);
      insertGroup({ apiKeyId, organizationId: org.id, id: groupId, name: groupName, createdAt });
      for (const m of d.sample(orgMembers, d.int(2, 5))) insertGroupMember({ apiKeyId, organizationId: org.id, groupId, userId: m.user.userId, createdAt });
    }

    // The folder tree (the services' placement: ancestors from `root`, `path` of URI-encoded ids, inherited access).
    const folderIds: string[] = [];
    const folder = (
      id: string,
      name: string,
      parent: { id: string; ancestors: string[]; path: string; accessType: DocumentAccessType } | null,
      own: DocumentAccessType | null,
    ) => {
      const accessType = own ?? parent?.accessType ?? 'public';
      const row = {
        apiKeyId,
        organizationId: org.id,
        id,
        name,
        parentId: parent?.id ?? 'root',
        ancestors: parent ? [...parent.ancestors, parent.id] : ['root'],
        path: `${parent?.path ?? '/'}${encodeURIComponent(id)}/`,
        ownAccessType: own,
        inheritAccess: own === null,
        accessType,
        createdAt,
        updatedAt: createdAt,
      };
      insertFolder(row);
      folderIds.push(id);
      return row;
    };
    const tops = d.sample(TOP_FOLDERS, Math.min(counts.topFoldersPerOrganization, TOP_FOLDERS.length));
    tops.forEach((name, t) => {
      const restricted = t === tops.length - 1 && tops.length > 1;
      const top = folder(slug(name), name, null, restricted ? 'restricted' : null);
      if (restricted)
        for (const m of orgMembers.slice(0, 2))
          insertMembership({
            apiKeyId,
            organizationId: org.id,
            level: 'folder',
            resourceId: top.id,
            userId: m.user.userId,
            accessRole: 'editor',
            expiresAt: null,
            createdAt,
            updatedAt: createdAt,
          });
      for (const subName of d.sample(SUB_FOLDERS, d.int(1, 3))) {
        const sub = folder(`${top.id}-${slug(subName)}`, subName, top, null);
        if (d.chance(0.3)) folder(`${sub.id}-archive`, 'Archive', sub, null);
      }
    });

    // Documents: most in folders, some at the top; most with the key's default access type.
    const docs: Doc[] = [];
    const seeded: SeededOrganization = { id: org.id, name: org.name, documentIds: [], crdtDocuments: [] };
    const documentCount = perOrg(counts.documents, o);
    const crdtCount = perOrg(crdtTotal, o);
    const width = String(documentCount).length;
    for (let n = 0; n < documentCount; n++) {
      const id = `doc-${String(n + 1).padStart(Math.max(4, width), '0')}`;
      const title = documentTitle(d);
      const created = when(60, 1);
      const updated = Math.min(now, created + Math.round(d.random() * 10 * DAY));
      const author = d.pick(orgMembers);
      const accessRoll = d.random();
      const accessType: DocumentAccessType =
        accessRoll < 0.85 ? apiKey.settings.defaultDocumentAccessType : accessRoll < 0.95 ? 'restricted' : 'organizationPrivate';
      insertDocument({
        apiKeyId,
        organizationId: org.id,
        id,
        name: title,
        folderId: d.chance(0.15) || folderIds.length === 0 ? null : d.pick(folderIds),
        accessType,
        disabled: false,
        metadata: { createdBy: author.user.userId },
        createdAt: created,
        updatedAt: updated,
      });
      if (accessType === 'restricted')
        insertMembership({
          apiKeyId,
          organizationId: org.id,
          level: 'document',
          resourceId: id,
          userId: author.user.userId,
          accessRole: 'editor',
          expiresAt: null,
          createdAt: created,
          updatedAt: created,
        });
      activity({
        organizationId: org.id,
        documentId: id,
        featureType: 'custom',
        actionType: 'document.create',
        actionUser: author.user,
        targetEntityId: id,
        entityData: { documentName: title },
        displayMessageTemplate: '{{actionUser}} created {{documentName}}',
        displayMessageTemplateData: { actionUser: author.user.name, documentName: title },
        timestamp: created,
      });
      if (n < crdtCount) {
        const type = crdtContent(d, title);
        const doc = new Y.Doc({ gc: true });
        doc.clientID = d.int(1, 2 ** 31 - 1);
        doc.transact(() => writeContent(doc, type.type, CONTENT_KEY, type.data));
        insertCrdt({
          apiKeyId,
          organizationId: org.id,
          documentId: id,
          editorId: EDITOR_ID,
          type: type.type,
          contentKey: CONTENT_KEY,
          snapshot: Buffer.from(Y.encodeStateAsUpdate(doc)),
          updateCount: 0,
          lastUpdatedBy: author.user.userId,
          compactedAt: updated,
          createdAt: created,
          updatedAt: updated,
        });
        doc.destroy();
        seeded.crdtDocuments.push({ documentId: id, type: type.type });
      }
      docs.push({ id, title, createdAt: created });
      seeded.documentIds.push(id);
      progress(n < crdtCount ? 2 : 1, 'documents');
    }
    docsByOrg.push(docs);
    organizations.push(seeded);
  });

  // Comment threads (with reactions, reads and mention notifications), on documents with content first.
  const mentionNotifications = writeComments({
    put,
    apiKeyId,
    d,
    now,
    annotations: counts.annotations,
    organizations,
    members,
    docsByOrg,
    activity,
    insertNotification,
    insertRecipient,
    progress,
  });

  // Recordings: each with one small, valid file (a WAV voice note or a PNG frame of a screen recording).
  const tones = [440, 523, 659].map((hz) => wavTone(hz, 1500));
  const frames = (
    [
      [52, 101, 164],
      [46, 139, 87],
      [178, 34, 52],
    ] as const
  ).map((rgb) => screenPng(160, 100, rgb));
  for (let r = 0; r < counts.recordings; r++) {
    const o = r % plan.length;
    const org = plan[o] as (typeof plan)[number];
    const doc = d.pick(docsByOrg[o] as Doc[]);
    const from = (d.pick(members[o] as Member[]) as Member).user;
    const audio = d.chance(0.5);
    const bytes = audio ? d.pick(tones) : d.pick(frames);
    const createdAt = Math.max(doc.createdAt, when(20));
    const id = d.alphanumeric(20);
    const storageKey = d.alphanumeric(32);
    attachments.push({ key: storageKey, bytes });
    const durationMs = audio ? 1500 : d.int(20, 240) * 1000;
    insertRecording({
      apiKeyId,
      organizationId: org.id,
      id,
      documentId: doc.id,
      recordingType: audio ? 'audio' : 'screen',
      mode: 'floating',
      displayName: audio ? `Voice note on ${doc.title}` : `Walkthrough of ${doc.title}`,
      durationMs,
      fromUser: from,
      fromUserId: from.userId,
      latestVersion: 1,
      createdAt,
      updatedAt: createdAt,
    });
    const mimeType = audio ? 'audio/wav' : 'image/png';
    insertAttachment({
      apiKeyId,
      organizationId: org.id,
      recordingId: id,
      attachmentId: 1,
      version: 1,
      name: audio ? 'voice-note.wav' : 'screen.png',
      type: audio ? 'audio' : 'image',
      mimeType,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      storageKey,
      createdAt,
    });
    activity({
      organizationId: org.id,
      documentId: doc.id,
      featureType: 'recorder',
      actionType: 'recorder.add',
      actionUser: from,
      targetEntityId: id,
      displayMessageTemplate: '{{actionUser}} added a recording',
      displayMessageTemplateData: { actionUser: from.name },
      timestamp: createdAt,
    });
    progress(1, 'recordings');
  }

  // Notifications: round-robin over the organizations, each to one or two members besides the one who acted.
  const headlines = [
    '{actionUser} shared {documentName} with you',
    '{actionUser} edited {documentName}',
    '{actionUser} asked you to review {documentName}',
    '{actionUser} replied in {documentName}',
    '{actionUser} published {documentName}',
  ];
  const nextId = plan.map(() => 0);
  const custom = Math.max(0, counts.notifications - mentionNotifications);
  for (let i = 0; i < custom; i++) {
    const o = i % plan.length;
    const orgMembers = members[o] as Member[];
    const doc = d.pick(docsByOrg[o] as Doc[]);
    const actor = (d.pick(orgMembers) as Member).user;
    const timestamp = Math.max(doc.createdAt, when(30));
    const id = String(2_000_000_000_000_000 + nextId[o]!++);
    const organizationId = (plan[o] as (typeof plan)[number]).id;
    insertNotification({
      apiKeyId,
      organizationId,
      id,
      documentId: doc.id,
      locationId: null,
      source: 'custom',
      sourceData: null,
      actionUser: actor,
      headlineTemplate: d.pick(headlines),
      headlineData: { actionUser: actor, documentName: doc.title },
      body: sentence(d),
      resolver: false,
      contextAccess: null,
      timestamp,
    });
    const recipients = d.sample(
      orgMembers.filter((m) => m.user.userId !== actor.userId),
      d.int(1, 2),
    );
    for (const m of recipients) {
      const readAt = timestamp < now - 2 * DAY && d.chance(0.5) ? timestamp + d.int(60_000, 6 * 3600_000) : null;
      insertRecipient({ apiKeyId, organizationId, notificationId: id, userId: m.user.userId, documentId: doc.id, timestamp, explicit: true, readAt });
    }
    progress(1, 'notifications');
  }
}

/** Content for one document's editor, in one of the four shared types (rich text XML most of the time). */
function crdtContent(d: Dice, title: string): { type: CrdtType; data: unknown } {
  const roll = d.random();
  if (roll < 0.55) {
    const paragraphs = Array.from({ length: d.int(2, 4) }, () => `<paragraph>${paragraph(d)}</paragraph>`).join('');
    return { type: 'xml', data: `<heading level="1">${escapeXml(title)}</heading>${paragraphs}` };
  }
  if (roll < 0.75) return { type: 'text', data: `${title}\n\n${paragraph(d)}\n\n${paragraph(d)}` };
  if (roll < 0.9)
    return {
      type: 'map',
      data: {
        title,
        status: d.pick(['draft', 'in review', 'approved']),
        summary: sentence(d),
        priority: d.int(1, 3),
        tags: d.sample(['q3', 'customer', 'internal', 'launch', 'legal', 'design'], 2),
      },
    };
  return { type: 'array', data: d.sample(CHECKLIST_ITEMS, d.int(3, 6)).map((text) => ({ text, done: d.chance(0.4) })) };
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
