// One page of a list query plus the total, newest first (created_at, then the time-ordered id).
import type { SelectQueryBuilder } from 'kysely';
import type { PageParams } from '../shared/paging.js';

export async function paginate<DB, TB extends keyof DB, O>(
  base: SelectQueryBuilder<DB, TB, object>,
  params: PageParams,
  select: (qb: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  order: { created: string; id: string } = { created: 'created_at', id: 'id' },
): Promise<{ rows: O[]; total: number }> {
  const [countRow, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll().as('total')).executeTakeFirst() as Promise<
      { total: number | string | bigint } | undefined
    >,
    select(base)
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      .orderBy(order.created as any, 'desc')
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      .orderBy(order.id as any, 'desc')
      .limit(params.perPage)
      .offset((params.page - 1) * params.perPage)
      .execute(),
  ]);
  return { rows, total: Number(countRow?.total ?? 0) };
}
