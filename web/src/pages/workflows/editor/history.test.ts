// Undo/redo and renaming a step: the editor's graph logic behind Ctrl+Z, Ctrl+Shift+Z and the
// Step id field.
import { describe, expect, it } from 'vitest';
import { linkEdge, newStepNode, renameNode, renameProblem, toGraph, type StepNode } from './graph';
import { EditHistory, snapshotOf } from './history';

const speak = (id: string, text: string, x = 0): StepNode => {
  const n = newStepNode('speak', id, { x, y: 0 });
  return { ...n, data: { node: { ...n.data.node, config: { text } } } };
};

describe('EditHistory', () => {
  it('undoes and redoes whole edits, and a new edit drops what could be redone', () => {
    const h = new EditHistory();
    const a = snapshotOf([speak('s', 'hi')], []);
    const b = snapshotOf([speak('s', 'hi'), speak('t', 'bye', 200)], []);
    const c = snapshotOf(b.nodes, [linkEdge('s', 'default', 't')]);
    h.record(a, b);
    h.record(b, c);
    expect(h.undo(c)).toBe(b);
    expect(h.undo(b)).toBe(a);
    expect(h.canUndo).toBe(false);
    expect(h.redo(a)).toBe(b);
    expect(h.canRedo).toBe(true);
    const d = snapshotOf([speak('s', 'hello')], []);
    h.record(b, d);
    expect(h.canRedo).toBe(false);
    expect(h.undo(d)).toBe(b);
  });

  it("makes one undo step of one step's settings typed key by key, until something else happens", () => {
    const h = new EditHistory();
    const typed = ['', 'H', 'He', 'Hel', 'Hello'].map((t) => snapshotOf([speak('s', t), speak('u', '')], []));
    for (let i = 1; i < typed.length; i++) h.record(typed[i - 1], typed[i]);
    expect(h.undo(typed[4])).toBe(typed[0]);
    expect(h.canUndo).toBe(false);

    // Typing into another step, or after a seal (a selection), starts a new undo step.
    const h2 = new EditHistory();
    const other = snapshotOf([speak('s', 'Hello'), speak('u', 'x')], []);
    h2.record(typed[3], typed[4]);
    h2.record(typed[4], other);
    expect(h2.undo(other)).toBe(typed[4]);
    const h3 = new EditHistory();
    h3.record(typed[2], typed[3]);
    h3.seal();
    h3.record(typed[3], typed[4]);
    expect(h3.undo(typed[4])).toBe(typed[3]);
  });

  it('never merges a move, and keeps selection out of what it restores', () => {
    const h = new EditHistory();
    const a = snapshotOf([{ ...speak('s', 'x'), selected: true }], []);
    const b = snapshotOf([speak('s', 'x', 50)], []);
    const c = snapshotOf([speak('s', 'x', 90)], []);
    h.record(a, b);
    h.record(b, c);
    expect(h.undo(c)).toBe(b);
    expect(h.undo(b)!.nodes[0].selected).toBe(false);
  });
});

describe('EditHistory across a reload', () => {
  const steps = (n: number) =>
    Array.from({ length: n }, (_, i) => snapshotOf([speak('s', `text ${i}`, i * 10)], []));

  it('comes back for the same workflow when the draft is still where it ended, redo included', () => {
    const [a, b, c] = steps(3);
    const h = new EditHistory();
    h.record(a, b);
    h.record(b, c);
    h.undo(c);
    h.save(sessionStorage, 'wf1', 'graph-b');

    const back = EditHistory.load(sessionStorage, 'wf1', 'graph-b');
    expect(back.undo(b)).toEqual(a);
    expect(back.redo(a)).toEqual(b);
    expect(back.redo(b)).toEqual(c);
    // Another workflow has its own (none), and a draft changed since (another tab) drops it.
    expect(EditHistory.load(sessionStorage, 'wf2', 'graph-b').canUndo).toBe(false);
    expect(EditHistory.load(sessionStorage, 'wf1', 'graph-x').canUndo).toBe(false);
  });

  it('keeps only the newest steps, fewer when storage is full, and never throws', () => {
    const many = steps(60);
    const h = new EditHistory();
    for (let i = 1; i < many.length; i++) h.record(many[i - 1], many[i]);
    h.save(sessionStorage, 'wf', 'g');
    const back = EditHistory.load(sessionStorage, 'wf', 'g');
    let undone = 0;
    let at = many[59];
    for (let s = back.undo(at); s; s = back.undo(at)) [at, undone] = [s, undone + 1];
    expect(undone).toBe(40);
    expect(at).toEqual(many[19]);

    // A storage that refuses anything over 2,000 characters: fewer steps are kept.
    const small: Storage = Object.assign(Object.create(sessionStorage) as Storage, {
      setItem(key: string, value: string) {
        if (value.length > 2000) throw new DOMException('full', 'QuotaExceededError');
        sessionStorage.setItem(key, value);
      },
      getItem: (key: string) => sessionStorage.getItem(key),
    });
    h.save(small, 'tiny', 'g');
    const kept = EditHistory.load(small, 'tiny', 'g');
    expect(kept.canUndo).toBe(true);
    expect(sessionStorage.getItem('switchboard.editHistory.tiny')!.length).toBeLessThanOrEqual(2000);
    expect(kept.undo(many[59])).toEqual(many[58]);

    sessionStorage.setItem('switchboard.editHistory.bad', '{not json');
    expect(EditHistory.load(sessionStorage, 'bad', 'g').canUndo).toBe(false);
  });
});

describe('renaming a step', () => {
  const nodes = [speak('start', 'a'), speak('ask', 'b', 200), speak('bye', 'c', 400)];
  const edges = [
    linkEdge('start', 'default', 'ask'),
    {
      ...linkEdge('ask', 'timeout', 'bye'),
      data: { edge: { source: 'ask', target: 'bye', source_handle: 'timeout', note: 'kept' } },
    },
  ];

  it('renames the node and every edge into and out of it, keeping their exits and extra keys', () => {
    const out = renameNode(nodes, edges, 'ask', 'ask_pin');
    const graph = toGraph(out.nodes, out.edges);
    expect(graph.nodes.map((n) => n.id)).toEqual(['start', 'ask_pin', 'bye']);
    expect(graph.edges).toEqual([
      { source: 'start', target: 'ask_pin' },
      { source: 'ask_pin', target: 'bye', source_handle: 'timeout', note: 'kept' },
    ]);
    expect(out.edges.map((e) => e.id)).toEqual(['start:default->ask_pin', 'ask_pin:timeout->bye']);
  });

  it('refuses an empty id, spaces around it, and an id another step has', () => {
    expect(renameProblem(nodes, 'ask', '')).toBe('A step needs an id.');
    expect(renameProblem(nodes, 'ask', ' ask2')).toBe('An id cannot start or end with a space.');
    expect(renameProblem(nodes, 'ask', 'bye')).toBe('Another step is already called bye.');
    expect(renameProblem(nodes, 'ask', 'ask')).toBeNull();
    expect(renameProblem(nodes, 'ask', 'menu')).toBeNull();
  });
});
