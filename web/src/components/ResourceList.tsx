// The list half of a list page: a toolbar of filters, the table, its empty state and the pager,
// with the page's retry banner while a read fails. The filters and the page live in the URL
// (`useResourceList`), so the page around it only says what the columns and filters are.
import type { ReactNode } from 'react';
import type { ResourceListState } from '../api/list-query';
import { ErrorBanner, Loading } from './ErrorBanner';
import { SelectField, TextField, type Option } from './fields';
import { Pager } from './Pager';

export interface ListFilter<K extends string> {
  key: K;
  label: string;
  /** A select with these choices and an empty "any" choice labelled `anyLabel`; otherwise a text box. */
  options?: Option[];
  anyLabel?: string;
  type?: 'text' | 'tel' | 'date';
  placeholder?: string;
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** Right-aligned numbers. */
  num?: boolean;
  className?: string;
}

export function ResourceList<T extends { id: string }, K extends string>({
  list,
  filters = [],
  columns,
  noun,
  empty,
}: {
  list: ResourceListState<T, K>;
  filters?: ListFilter<K>[];
  columns: Column<T>[];
  /** Plural, for the pager and the filters' label ("calls"). */
  noun: string;
  /** What an empty list says: with a filter set, "No <noun> match." instead. */
  empty: ReactNode;
}) {
  const filtered = filters.some((f) => list.filters[f.key] !== '');
  return (
    <>
      {filters.length > 0 && <ListFilters list={list} filters={filters} noun={noun} />}
      {list.error && <ErrorBanner error={list.error} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading />}
      {list.data && (
        <div className="card card-flush">
          <ListTable rows={list.data.data} columns={columns} />
          {list.data.data.length === 0 && (
            <p className="empty">{filtered ? `No ${noun} match these filters.` : empty}</p>
          )}
          <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun={noun} />
        </div>
      )}
    </>
  );
}

/** The toolbar of filters above the table: a select for a filter with choices, a text box otherwise. */
function ListFilters<T extends { id: string }, K extends string>({
  list,
  filters,
  noun,
}: {
  list: ResourceListState<T, K>;
  filters: ListFilter<K>[];
  noun: string;
}) {
  return (
    <div className="toolbar" role="search" aria-label={`Filter ${noun}`}>
      {filters.map((f) =>
        f.options ? (
          <SelectField
            key={f.key}
            name={`filter-${f.key}`}
            label={f.label}
            value={list.filters[f.key]}
            onChange={list.setFilter(f.key)}
            options={f.options}
            emptyLabel={f.anyLabel ?? 'Any'}
            className="field-inline"
          />
        ) : (
          <TextField
            key={f.key}
            name={`filter-${f.key}`}
            label={f.label}
            type={f.type}
            value={list.filters[f.key]}
            onChange={list.setFilter(f.key)}
            placeholder={f.placeholder}
            className="field-inline"
          />
        ),
      )}
    </div>
  );
}

/** The page's rows, one cell a column. */
function ListTable<T extends { id: string }>({ rows, columns }: { rows: T[]; columns: Column<T>[] }) {
  return (
    <table className="table">
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.header} scope="col" className={c.num ? 'num' : undefined}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            {columns.map((c) => (
              <td
                key={c.header}
                className={[c.num && 'num', c.className].filter(Boolean).join(' ') || undefined}
              >
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
