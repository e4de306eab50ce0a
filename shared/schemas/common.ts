import { z } from 'zod';

/**
 * Marks a field whose value is a secret (an auth token, a signing secret, a provider key), in a request's schema
 * or in an answer's (an operation's `output`). Marked once here, it is what the request monitor, the logs and the
 * admin views redact by (server/http/redact.ts), and what /openapi.json shows as `x-secret`.
 */
export const secret = <T extends z.ZodType>(schema: T): T => schema.meta({ 'x-secret': true });

/** Whether a schema (itself, not what it wraps) is marked secret. */
export const isSecret = (schema: z.ZodType): boolean => z.globalRegistry.get(schema)?.['x-secret'] === true;

/** Non-empty string after trimming; identifiers, names. */
export const nonEmpty = (max = 1024) =>
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max)
    // a lone surrogate would not survive storage unchanged, and PostgreSQL stores no U+0000 (issue 43; an operation's
    // body is refused for both before its schema runs, http/validation.ts: this holds ids read elsewhere, a room's URL)
    .refine((s) => s.isWellFormed(), { error: 'must be well-formed Unicode text' })
    .refine((s) => !s.includes('\u0000'), { error: 'must not contain the NUL character (U+0000)' });

/**
 * Text sent on as it is (a prompt, a selection to rewrite): non-empty, never trimmed, since a rewritten selection is
 * spliced back whitespace and all.
 */
export const content = (max: number) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(max)
    .refine((s) => s.isWellFormed(), { error: 'must be well-formed Unicode text' })
    .refine((s) => !s.includes('\u0000'), { error: 'must not contain the NUL character (U+0000)' });

export const email = z.email({ error: 'must be a valid email address' }).max(320);

/** Page size shared by the workspace list operations. */
export const pageSize = (max: number, fallback: number) => z.number().int().min(1).max(max).default(fallback);

export const pageToken = z.string().min(1).max(2048);

export const ACCESS_ROLES = ['viewer', 'editor'] as const;
export type AccessRole = (typeof ACCESS_ROLES)[number];

/** `organizationPrivate` is the hosted service's organization-only value besides the two interface.md shows. */
export const DOCUMENT_ACCESS_TYPES = ['public', 'restricted', 'organizationPrivate'] as const;
export type DocumentAccessType = (typeof DOCUMENT_ACCESS_TYPES)[number];
