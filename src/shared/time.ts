// Timestamps leave the API in the spec's form, YYYY-MM-DDTHH:MM:SSZ (stored ones keep milliseconds
// so they sort; the API shows whole seconds).

export function apiTime(stored: string): string;
export function apiTime(stored: string | null): string | null;
export function apiTime(stored: string | null): string | null {
  if (stored === null) return null;
  return stored.length >= 20 ? `${stored.slice(0, 19)}Z` : stored;
}

/** Whole seconds between two stored timestamps. */
export function secondsBetween(from: string, to: string): number {
  return Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
}
