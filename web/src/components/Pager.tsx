// Paging under a list, driven by the API's own `links` and `meta`: the server's next link keeps the
// filters, so following it is all a page has to do.
import type { Links, PageMeta } from '../api/types';

export function Pager({
  links,
  meta,
  onFollow,
  noun,
}: {
  links: Links;
  meta: PageMeta;
  onFollow: (link: string) => void;
  noun: string;
}) {
  if (meta.total === 0) return null;
  return (
    <nav className="pager" aria-label={`${noun} pages`}>
      <span className="pager-count">
        {meta.from ?? 0}–{meta.to ?? 0} of {meta.total} {noun}
      </span>
      <button
        type="button"
        className="btn btn-small"
        disabled={!links.prev}
        onClick={() => links.prev && onFollow(links.prev)}
      >
        Previous
      </button>
      <span className="pager-page">
        Page {meta.current_page} of {Math.max(meta.last_page, 1)}
      </span>
      <button
        type="button"
        className="btn btn-small"
        disabled={!links.next}
        onClick={() => links.next && onFollow(links.next)}
      >
        Next
      </button>
    </nav>
  );
}
