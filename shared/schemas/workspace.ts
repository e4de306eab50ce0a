import { z } from 'zod';
import { email } from './common.ts';

export const WORKSPACE_PLANS = ['free', 'paid'] as const;

export const workspaceCreateInput = z.object({
  ownerEmail: email,
  name: z.string().trim().max(200).optional(),
  workspaceName: z.string().trim().min(1).max(200).optional(),
  avatar: z.string().max(2000).optional(),
});

export const sendLoginLinkInput = z.object({
  email,
  // any string: one that is not an http(s) URL gets the hosted message, 'Invalid url for continueUrl' (an empty one too)
  continueUrl: z.string().max(2048),
});

export const emailStatusInput = z.object({ ownerEmail: email });
