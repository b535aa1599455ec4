// Where the signed-in API key lives: sessionStorage, so it lasts as long as the tab and no longer.
// `npm start`'s first-run sign-in link carries the key in the URL fragment (`/#key=pk_live_…`),
// which never reaches a server; the app takes it from there once and strips it from the address bar.
const STORAGE_KEY = 'switchboard.apiKey';
const KEY_PATTERN = /^pk_live_[A-Za-z0-9_-]{8,}$/;

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key.trim());
}

export function readKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key.trim());
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/**
 * Takes a key from `#key=…` in the current URL, stores it, and replaces the URL with one without
 * the fragment (so it is neither in the history nor in a bookmark). Returns whether one was taken.
 */
export function adoptKeyFromFragment(
  location: Location = window.location,
  history: History = window.history,
): boolean {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const key = params.get('key');
  if (!key) return false;
  params.delete('key');
  const rest = params.toString();
  history.replaceState(history.state, '', location.pathname + location.search + (rest ? `#${rest}` : ''));
  if (!isWellFormedKey(key)) return false;
  storeKey(key);
  return true;
}
