// Loading data for a page: one hook for a single read and one for a paged list. Both keep the last
// good data while reloading, expose the ApiError (a lost connection included) for the page's
// retry banner, and ignore answers that arrive after the page moved on.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './errors';
import type { Page } from './types';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
  setData: (data: T) => void;
}

function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, String(err));
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let current = true;
    setLoading(true);
    loadRef.current().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!current) return;
        setError(asApiError(err));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names what the load depends on
  }, [...deps, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, error, loading, reload, setData };
}

export interface PagedList<T> extends Loaded<Page<T>> {
  /** Follows one of the list's `links` (its query carries the page and the filters). */
  follow: (link: string) => void;
  query: Record<string, string>;
}

/**
 * A paged list whose filters live in `filters`; changing them starts again at page 1. Paging goes
 * through the API's own `links`, so the server decides what the next page is.
 */
export function usePagedList<T>(
  load: (query: Record<string, string>) => Promise<Page<T>>,
  filters: Record<string, string | undefined>,
): PagedList<T> {
  const clean = Object.fromEntries(
    Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  );
  const filterKey = JSON.stringify(clean);
  const [pageQuery, setPageQuery] = useState<{ filters: string; query: Record<string, string> }>({
    filters: filterKey,
    query: clean,
  });
  const query = pageQuery.filters === filterKey ? pageQuery.query : clean;
  const loaded = useLoad(() => load(query), [JSON.stringify(query)]);
  const follow = useCallback(
    (link: string) => {
      const url = new URL(link, window.location.origin);
      setPageQuery({ filters: filterKey, query: Object.fromEntries(url.searchParams) });
    },
    [filterKey],
  );
  return { ...loaded, follow, query };
}
