// Reads the join token from the page's fragment (`/join#token=…`) and takes it out of the address
// bar, so it is neither bookmarked nor shared by a copied link. Fragments never reach a server.

/** The `token` of `#token=…`, or null; removes the fragment from the address bar when asked. */
export function tokenFromFragment(location: Location = window.location, clear = true): string | null {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = params.get('token');
  if (token && clear && typeof history !== 'undefined') {
    history.replaceState(null, '', location.pathname + location.search);
  }
  return token && token.trim() !== '' ? token.trim() : null;
}
