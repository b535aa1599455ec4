// Lists render exactly like a Laravel length-aware paginator: `data`, `links`
// (first/last/prev/next) and `meta` (current_page, from, last_page, path, per_page, to, total).
// Link URLs start with `?page=N`; the other query parameters (per_page, filters) follow, so
// following `next` keeps the same filters.

export interface PageParams {
  page: number;
  perPage: number;
}

export interface PageRequest {
  /** Absolute URL of the list without query, e.g. http://host/api/v1/calls. */
  path: string;
  /** The request's query parameters (page is replaced in links). */
  query: Record<string, unknown>;
}

export interface Page<T> {
  data: T[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: {
    current_page: number;
    from: number | null;
    last_page: number;
    path: string;
    per_page: number;
    to: number | null;
    total: number;
  };
}

export const DEFAULT_PER_PAGE = 25;

export function pageParams(query: { page?: number; per_page?: number }): PageParams {
  return { page: query.page ?? 1, perPage: query.per_page ?? DEFAULT_PER_PAGE };
}

export function renderPage<T>(items: T[], total: number, params: PageParams, req: PageRequest): Page<T> {
  return { data: items, ...pageFrame(items.length, total, params, req) };
}

/** A page's `links` and `meta`, for a page holding `count` items. */
function pageFrame(
  count: number,
  total: number,
  params: PageParams,
  req: PageRequest,
): Omit<Page<never>, 'data'> {
  const lastPage = Math.max(1, Math.ceil(total / params.perPage));
  const offset = (params.page - 1) * params.perPage;
  const rest = Object.entries(req.query)
    .filter(([k, v]) => k !== 'page' && v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('');
  const url = (n: number) => `${req.path}?page=${n}${rest}`;
  return {
    links: {
      first: url(1),
      last: url(lastPage),
      prev: params.page > 1 ? url(Math.min(params.page - 1, lastPage)) : null,
      next: params.page < lastPage ? url(params.page + 1) : null,
    },
    meta: {
      current_page: params.page,
      from: count ? offset + 1 : null,
      last_page: lastPage,
      path: req.path,
      per_page: params.perPage,
      to: count ? offset + count : null,
      total,
    },
  };
}

/**
 * The same page as JSON text, for items that are JSON already (`itemsJson`: `count` items joined
 * by commas): exactly what serializing renderPage() through the Paginated schema gives (`links`
 * and `meta` keep the schema's order).
 */
export function renderPageJson(
  itemsJson: string,
  count: number,
  total: number,
  params: PageParams,
  req: PageRequest,
): string {
  const { links, meta } = pageFrame(count, total, params, req);
  return `{"data":[${itemsJson}],"links":${JSON.stringify(links)},"meta":${JSON.stringify(meta)}}`;
}
