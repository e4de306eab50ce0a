/** Shared formatting of times, sizes and numbers. */
export const time = (ms: number | null | undefined) => (ms ? new Date(ms).toLocaleString() : '—');
export const clock = (ms: number) => new Date(ms).toLocaleTimeString();
export function ago(ms: number | null | undefined): string {
  if (!ms) return '—';
  const s = Math.round((Date.now() - ms) / 1000);
  if (s < 60) return `${Math.max(s, 0)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
export const num = (n: number) => n.toLocaleString('en-US');
export const ms = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n < 10 ? `${n.toFixed(2)} ms` : `${n.toFixed(0)} ms`);
export const pretty = (text: string | undefined | null) => {
  if (text === undefined || text === null || text === '') return '(none)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};
