/**
 * What `hearth seed` can be asked for, kept free of the server's modules: the CLI lists every command's help
 * without loading the server, and loads it only when the seed runs.
 */

/** How much of everything one seed writes. `documents`, `crdtDocuments`, `notifications`, `annotations` and `recordings` are totals, spread over the organizations. */
export interface SeedCounts {
  organizations: number;
  usersPerOrganization: number;
  topFoldersPerOrganization: number;
  documents: number;
  /** Documents that get collaborative (Yjs) content: the first ones of each organization. */
  crdtDocuments: number;
  /** Notifications in all, mention notifications of comments included. */
  notifications: number;
  annotations: number;
  recordings: number;
}

export type SeedSize = 'small' | 'large';

export const SEED_SIZES: Record<SeedSize, SeedCounts> = {
  small: {
    organizations: 3,
    usersPerOrganization: 8,
    topFoldersPerOrganization: 3,
    documents: 36,
    crdtDocuments: 36,
    notifications: 150,
    annotations: 30,
    recordings: 6,
  },
  large: {
    organizations: 10,
    usersPerOrganization: 100,
    topFoldersPerOrganization: 6,
    documents: 100_000,
    crdtDocuments: 10_000,
    notifications: 1_000_000,
    annotations: 10_000,
    recordings: 40,
  },
};

/** A refusal the user can act on (a server runs on the data dir, the seed is already there, no such API key). */
export class SeedRefusedError extends Error {
  override name = 'SeedRefusedError';
}
