import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../test/support/api.js';
import { createPublishedWorkflow } from '../../../test/support/fixtures.js';
import { storeKinds } from '../../../test/support/stores.js';
import type { WorkflowGraph } from '../../workflow/graph.types.js';
import { loadGraph } from '../calls/phone-session.js';
import { VersionGraphs } from './version-graphs.js';

const graph = (id: string): WorkflowGraph =>
  ({ nodes: [{ id, type: 'start', data: {} }], edges: [] }) as unknown as WorkflowGraph;

describe('the cache of published versions', () => {
  it('reads a version once, then serves it from memory', async () => {
    const cache = new VersionGraphs();
    let reads = 0;
    const load = async () => {
      reads++;
      return graph('a');
    };
    const first = await cache.get('wf', 1, load);
    const second = await cache.get('wf', 1, load);
    expect(second).toBe(first);
    expect(reads).toBe(1);
    // Another version of the same workflow is another entry.
    await cache.get('wf', 2, load);
    expect(reads).toBe(2);
  });

  it('does not remember a missing version, so one published later is found', async () => {
    const cache = new VersionGraphs();
    expect(await cache.get('wf', 1, async () => null)).toBeNull();
    expect((await cache.get('wf', 1, async () => graph('later')))?.nodes[0]?.id).toBe('later');
  });

  it('freezes the shared graph, so no session can change it for the next', async () => {
    const cache = new VersionGraphs();
    const g = (await cache.get('wf', 1, async () => graph('a')))!;
    expect(() => {
      (g.nodes as unknown[]).push({});
    }).toThrow(TypeError);
    expect(() => {
      (g.nodes[0] as { id: string }).id = 'b';
    }).toThrow(TypeError);
  });

  it('forgets every version of a workflow, and only of that one', async () => {
    const cache = new VersionGraphs();
    await cache.get('wf', 1, async () => graph('a'));
    await cache.get('wf', 2, async () => graph('b'));
    await cache.get('wf2', 1, async () => graph('c'));
    cache.forget('wf');
    expect(cache.size).toBe(1);
    expect(await cache.get('wf', 1, async () => null)).toBeNull();
    expect((await cache.get('wf2', 1, async () => null))?.nodes[0]?.id).toBe('c');
  });

  it('holds at most its bound, dropping the least recently used', async () => {
    const cache = new VersionGraphs(2);
    await cache.get('a', 1, async () => graph('a'));
    await cache.get('b', 1, async () => graph('b'));
    await cache.get('a', 1, async () => null); // a is now the most recently used
    await cache.get('c', 1, async () => graph('c'));
    expect(cache.size).toBe(2);
    expect(await cache.get('b', 1, async () => null)).toBeNull();
    expect(await cache.get('a', 1, async () => null)).not.toBeNull();
  });
});

describe.each(storeKinds())('published versions on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  it("a deleted workflow's versions are gone from memory too", async () => {
    const project = await t.call('POST', '/api/v1/projects', { body: { name: 'versions' } });
    const projectId = (project.data as { data: { id: string } }).data.id;
    const id = await createPublishedWorkflow(t, projectId);
    const g = await loadGraph(t.store.db, id, 1);
    expect(g?.nodes.length).toBeGreaterThan(0);
    expect(await loadGraph(t.store.db, id, 1)).toBe(g);
    const del = await t.call('DELETE', `/api/v1/workflows/${id}`);
    expect(del.statusCode).toBe(204);
    expect(await loadGraph(t.store.db, id, 1)).toBeNull();
  });
});
