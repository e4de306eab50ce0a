/** One API call as the admin UI's request monitor lists it (server/admin/monitor.ts keeps them). */
export interface CallSummary {
  id: number;
  at: number;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** The API key or workspace id the call presented (never its token). */
  caller: string | null;
  requestId: string;
  /** Whether request and response bodies were kept (only while a UI watched). */
  hasBodies: boolean;
}
