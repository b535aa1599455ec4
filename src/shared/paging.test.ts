import { describe, expect, it } from 'vitest';
import { renderPage } from './paging.js';

const req = { path: 'http://h/api/v1/projects', query: {} };

describe('renderPage (Laravel length-aware paginator)', () => {
  it('renders the first of several pages', () => {
    const p = renderPage([1, 2], 5, { page: 1, perPage: 2 }, req);
    expect(p.links).toEqual({
      first: 'http://h/api/v1/projects?page=1',
      last: 'http://h/api/v1/projects?page=3',
      prev: null,
      next: 'http://h/api/v1/projects?page=2',
    });
    expect(p.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 3,
      path: req.path,
      per_page: 2,
      to: 2,
      total: 5,
    });
  });

  it('renders the last page with next null', () => {
    const p = renderPage([5], 5, { page: 3, perPage: 2 }, req);
    expect(p.links.next).toBeNull();
    expect(p.links.prev).toBe('http://h/api/v1/projects?page=2');
    expect(p.meta.from).toBe(5);
    expect(p.meta.to).toBe(5);
  });

  it('renders an empty list with last_page 1 and from/to null', () => {
    const p = renderPage([], 0, { page: 1, perPage: 25 }, req);
    expect(p.meta).toMatchObject({ last_page: 1, from: null, to: null, total: 0 });
    expect(p.links.last).toBe('http://h/api/v1/projects?page=1');
    expect(p.links.next).toBeNull();
  });

  it('renders a page past the end as empty data, prev pointing at the last page', () => {
    const p = renderPage([], 5, { page: 9, perPage: 2 }, req);
    expect(p.data).toEqual([]);
    expect(p.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 3 });
    expect(p.links.next).toBeNull();
    expect(p.links.prev).toBe('http://h/api/v1/projects?page=3');
  });

  it('keeps filters and per_page after ?page=N', () => {
    const p = renderPage(
      [1],
      3,
      { page: 1, perPage: 1 },
      { path: req.path, query: { per_page: 1, status: 'queued', page: 1 } },
    );
    expect(p.links.next).toBe('http://h/api/v1/projects?page=2&per_page=1&status=queued');
  });
});
