import { z } from 'zod';

/** Non-empty string after trimming; identifiers, names. */
export const nonEmpty = (max = 1024) =>
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max)
    // a lone surrogate would not survive storage unchanged
    .refine((s) => s.isWellFormed(), { error: 'must be well-formed Unicode text' });

/**
 * Text sent on as it is (a prompt, a selection to rewrite): non-empty, never trimmed, since a rewritten selection is
 * spliced back whitespace and all.
 */
export const content = (max: number) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(max)
    .refine((s) => s.isWellFormed(), { error: 'must be well-formed Unicode text' });

export const email = z.email({ error: 'must be a valid email address' }).max(320);

/** Page size shared by the workspace list operations. */
export const pageSize = (max: number, fallback: number) => z.number().int().min(1).max(max).default(fallback);

export const pageToken = z.string().min(1).max(2048);

export const ACCESS_ROLES = ['viewer', 'editor'] as const;
export type AccessRole = (typeof ACCESS_ROLES)[number];

/** `organizationPrivate` is the hosted service's organization-only value besides the two interface.md shows. */
export const DOCUMENT_ACCESS_TYPES = ['public', 'restricted', 'organizationPrivate'] as const;
export type DocumentAccessType = (typeof DOCUMENT_ACCESS_TYPES)[number];
