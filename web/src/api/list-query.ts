// A list page's query kept in the page's URL: its filters (`?status=completed&direction=inbound`)
// and the page it is on (`&page=2&per_page=25`), so a filtered list survives a reload, can be
// linked to, and Back returns to the previous page of results. Changing a filter starts again at
// page 1; paging follows the API's own `links`, whose query carries the filters already.
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { useLoad, type Loaded } from './hooks';
import type { Page } from './types';

const PAGING = ['page', 'per_page'] as const;

export interface ListQuery<K extends string> {
  /** Every filter by name, '' when unset. */
  filters: Record<K, string>;
  setFilter: (key: K) => (value: string) => void;
  /** What the API is asked: the set filters and the page. */
  query: Record<string, string>;
  /** Follows one of the list's `links`. */
  follow: (link: string) => void;
}

export function useListQuery<K extends string>(keys: readonly K[]): ListQuery<K> {
  const [params, setParams] = useSearchParams();
  const known = [...keys, ...PAGING] as string[];
  const filters = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? ''])) as Record<K, string>;
  const query = Object.fromEntries(
    known.flatMap((k) => {
      const v = params.get(k);
      return v ? [[k, v]] : [];
    }),
  );
  const knownKey = known.join(',');

  const setFilter = useCallback(
    (key: K) => (value: string) =>
      // Typing in a filter replaces the history entry rather than adding one a keystroke.
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          if (value) next.set(key, value);
          else next.delete(key);
          for (const p of PAGING) next.delete(p);
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );

  const follow = useCallback(
    (link: string) => {
      const from = new URL(link, window.location.origin).searchParams;
      const next = new URLSearchParams();
      for (const k of knownKey.split(',')) {
        const v = from.get(k);
        if (v) next.set(k, v);
      }
      setParams(next);
    },
    [knownKey, setParams],
  );

  return { filters, setFilter, query, follow };
}

export interface ResourceListState<T, K extends string> extends ListQuery<K>, Loaded<Page<T>> {}

/** A paged API list read with the URL's query (see `useListQuery`). */
export function useResourceList<T, K extends string>(
  keys: readonly K[],
  load: (query: Record<string, string>) => Promise<Page<T>>,
): ResourceListState<T, K> {
  const listQuery = useListQuery(keys);
  const loaded = useLoad(() => load(listQuery.query), [JSON.stringify(listQuery.query)]);
  return { ...listQuery, ...loaded };
}
