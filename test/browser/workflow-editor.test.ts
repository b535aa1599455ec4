// The workflow editor in a real browser against a real server: a workflow built from the palette
// by keyboard and by dragging, steps connected by the keyboard (exit selects) and by xyflow's own
// handle elements with the mouse, configured through the schema-generated forms; a missing
// `save_to_variable` shown on its step and field and publish refused; fixed and published;
// simulated with the path lit on the canvas; versions listed, viewed read-only, diffed and rolled
// back; a step renamed and edits undone and redone (Ctrl+Z, Ctrl+Shift+Z, the header's buttons),
// the history kept across a reload; the steps tidied up by depth (and undone); and "Talk to it" over the realtime text socket. Each wait is on the page's saved state or
// on what the server holds, never on a timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  buildAll,
  chromiumPath,
  openBrowser,
  seriousViolations,
  startServer,
  type Browser,
  type Server,
} from './support.js';

const executable = chromiumPath();
const journey = executable || process.env.CI ? describe : describe.skip;

interface Graph {
  nodes: Array<{
    id: string;
    type: string;
    config?: Record<string, unknown>;
    position?: { x: number; y: number };
  }>;
  edges: Array<{ source: string; target: string; source_handle?: string }>;
}

journey('the workflow editor in chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let workflowId = '';

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium); CI needs it');
    await buildAll();
    server = await startServer();
    browser = await openBrowser(executable, 'editor');
    page = browser.page;
    await server.api('POST', '/projects', { name: 'Support line' });
    await page.goto(server.signInLink);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 420_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const draft = async () =>
    (await server.api<{ data: { graph: Graph } }>('GET', `/workflows/${workflowId}`)).body.data.graph;
  /** Waits until the draft on the server satisfies `ok` (the editor saves as you go). */
  const saved = async (ok: (g: Graph) => boolean, what: string) => {
    await page.locator('[data-save-status="saved"]').waitFor();
    for (let i = 0; i < 100; i++) {
      if (ok(await draft())) return;
      await page.waitForTimeout(200);
    }
    throw new Error(`the draft never had ${what}: ${JSON.stringify(await draft())}`);
  };
  const nodeEl = (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
  const panel = () => page.getByRole('complementary', { name: 'Editor panel' });
  /** Selects a step from the keyboard: focus it on the canvas and press Enter. */
  const pick = async (id: string) => {
    await nodeEl(id).focus();
    await page.keyboard.press('Enter');
    await panel()
      .getByRole('region', { name: `Step ${id}` })
      .waitFor();
  };
  const tab = (name: string) => panel().getByRole('button', { name, exact: true }).click();

  it('creates a workflow and adds and connects steps by keyboard', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workflows' }).click();
    await page.getByRole('button', { name: 'New workflow' }).click();
    await page.getByLabel('Name').fill('PIN check');
    await page.getByRole('button', { name: 'Create and open' }).click();
    await page.getByRole('heading', { level: 1, name: 'PIN check' }).waitFor();
    workflowId = /\/workflows\/([^/?#]+)/.exec(page.url())![1]!;

    // Keyboard only: focus the palette's Start, press Enter; then Collect DTMF, which follows Start's exit.
    await page.getByRole('button', { name: /^Add Start/ }).focus();
    await page.keyboard.press('Enter');
    await nodeEl('start').waitFor();
    await page.getByRole('button', { name: /^Add Collect DTMF/ }).focus();
    await page.keyboard.press('Enter');
    await nodeEl('dtmf').waitFor();
    await saved((g) => g.edges.some((e) => e.source === 'start' && e.target === 'dtmf'), 'start → dtmf');
    expect(await page.locator('.react-flow__edge').count()).toBe(1);
  }, 60_000);

  it('drags a step from the palette and connects a named exit by its handle with the mouse', async () => {
    await page.getByRole('button', { name: /^Add Speak/ }).dragTo(page.locator('.react-flow__pane'), {
      targetPosition: { x: 120, y: 60 },
    });
    await nodeEl('speak').waitFor();
    await saved((g) => g.nodes.some((n) => n.id === 'speak'), 'the speak step');

    // Both handles on screen first, as a person would scroll to them.
    await page.locator('.react-flow__controls-fitview').click();
    const from = nodeEl('dtmf').locator('.react-flow__handle[data-handleid="success"]');
    const to = nodeEl('speak').locator('.react-flow__handle[data-handleid="in"]');
    const a = (await from.boundingBox())!;
    const b = (await to.boundingBox())!;
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 8 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
    await page.mouse.up();
    await page.locator('[data-testid="rf__edge-dtmf:success->speak"]').waitFor();
    await saved(
      (g) =>
        g.edges.some((e) => e.source === 'dtmf' && e.source_handle === 'success' && e.target === 'speak'),
      'dtmf —success→ speak',
    );
  }, 60_000);

  it('configures steps, shows a missing save_to_variable on its step and field, and refuses to publish', async () => {
    // Speak is selected after the drop; End added now follows Speak's exit.
    await pick('speak');
    await panel().getByLabel('Text').fill('You entered {{pin}}. Goodbye.');
    await page.getByRole('button', { name: /^Add End/ }).click();
    await nodeEl('end').waitFor();
    // Collect DTMF: its timeout exit connected from the keyboard, its prompt typed, no variable yet.
    await pick('dtmf');
    await panel().getByLabel('When timeout, go to').selectOption('end');
    await panel().getByLabel('Prompt').fill('Enter your four digit PIN');
    await panel().getByLabel('Num digits').fill('4');
    await saved(
      (g) =>
        g.edges.some((e) => e.source === 'speak' && e.target === 'end') &&
        g.edges.some((e) => e.source === 'dtmf' && e.source_handle === 'timeout' && e.target === 'end') &&
        g.nodes.find((n) => n.id === 'dtmf')?.config?.num_digits === 4,
      'the configured graph',
    );

    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'was not published' }).waitFor();
    await nodeEl('dtmf').locator('.step-badge-error').waitFor();
    await pick('dtmf');
    const field = panel().locator('[data-config-field="save_to_variable"]');
    // Beside its field the message does not repeat the field's name; the step's list of findings
    // names the field once, then the message.
    await field.locator('.field-error', { hasText: 'Required (the variable to save to).' }).waitFor();
    expect(await field.locator('.field-error').textContent()).not.toContain('save_to_variable');
    expect(await panel().getByRole('list', { name: 'Findings on this step' }).textContent()).toContain(
      'save_to_variable: Required (the variable to save to).',
    );
    expect(await panel().getByLabel('Save to variable').getAttribute('aria-invalid')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('.react-flow__controls-fitview').click();
    await browser.shot('editor-finding');
    expect(
      (await server.api<{ data: unknown[] }>('GET', `/workflows/${workflowId}/versions`)).body.data,
    ).toEqual([]);
  }, 60_000);

  it('publishes once the finding is fixed, and simulates with the path lit on the canvas', async () => {
    await panel().getByLabel('Save to variable').fill('pin');
    await saved(
      (g) => g.nodes.find((n) => n.id === 'dtmf')?.config?.save_to_variable === 'pin',
      'the variable',
    );
    await nodeEl('dtmf').locator('.step-badge-error').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published version 1').waitFor();

    await tab('Simulate');
    await panel().getByLabel('Caller inputs, one per line').fill('dtmf:1234');
    await panel().getByRole('button', { name: 'Run simulation' }).click();
    await panel().getByText('You entered 1234. Goodbye.').waitFor();
    // The keys given show as the caller's keypad keys, between the prompt and the answer.
    expect(await panel().locator('.turn-user kbd').allTextContents()).toEqual(['1', '2', '3', '4']);
    for (const id of ['start', 'dtmf', 'speak', 'end']) await nodeEl(id).locator('.step-visited').waitFor();
    expect(await page.locator('.react-flow__edge.edge-visited').count()).toBe(3);
    await page.locator('.react-flow__controls-fitview').click();
    await browser.shot('editor-simulate');
  }, 60_000);

  it('lists versions, shows one read-only, diffs two, and rolls back to version 1 as version 3', async () => {
    await pick('speak');
    await panel().getByLabel('Text').fill('Thanks, your PIN {{pin}} is noted.');
    await saved(
      (g) => String(g.nodes.find((n) => n.id === 'speak')?.config?.text).startsWith('Thanks'),
      'the new text',
    );
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published version 2').waitFor();

    await tab('Versions');
    await panel().locator('.version-list').getByText('Version 2').waitFor();
    await panel().getByLabel('From').selectOption('1');
    await panel().getByLabel('To').selectOption('2');
    await panel().getByRole('list', { name: 'Changes' }).getByText('speak').waitFor();
    expect(await panel().getByRole('list', { name: 'Changes' }).innerText()).toContain('text');

    await panel()
      .getByRole('listitem')
      .filter({ hasText: 'Version 1' })
      .getByRole('button', { name: 'View' })
      .click();
    await page.getByText('Viewing version 1, read-only.').waitFor();
    // The frozen graph is on the canvas: version 1's text, not the draft's.
    await nodeEl('speak').getByText('You entered {{pin}}. Goodbye.').waitFor();
    await page.locator('.react-flow__controls-fitview').click();
    await browser.shot('editor-versions');
    await page.getByRole('button', { name: 'Back to the draft' }).click();

    await panel()
      .getByRole('listitem')
      .filter({ hasText: 'Version 1' })
      .getByRole('button', { name: 'Roll back' })
      .click();
    await panel().getByRole('button', { name: 'Publish v1 again' }).click();
    await page.getByText('Version 1 published again as version 3.').waitFor();
    const v1 = await server.api<{ data: { graph: Graph } }>('GET', `/workflows/${workflowId}/versions/1`);
    const v3 = await server.api<{ data: { graph: Graph } }>('GET', `/workflows/${workflowId}/versions/3`);
    expect(v3.body.data.graph).toEqual(v1.body.data.graph);
  }, 60_000);

  it('renames a step with its connections, and undoes and redoes by keyboard', async () => {
    const linked = (g: Graph, id: string) =>
      g.nodes.some((n) => n.id === id) &&
      g.edges.some((e) => e.source === 'dtmf' && e.source_handle === 'success' && e.target === id) &&
      g.edges.some((e) => e.source === id && e.target === 'end');
    await tab('Step');
    await pick('speak');
    // An id another step has is refused beside the field; the step keeps its name.
    await panel().getByLabel('Step id').fill('end');
    await panel().getByLabel('Step id').press('Enter');
    await panel().getByText('Another step is already called end.').waitFor();
    await panel().getByLabel('Step id').fill('thanks');
    await panel().getByLabel('Step id').press('Enter');
    await nodeEl('thanks').waitFor();
    await saved((g) => linked(g, 'thanks') && !g.nodes.some((n) => n.id === 'speak'), 'the renamed step');

    // Ctrl+Z on the canvas (a text box keeps its own undo) takes the rename back; Ctrl+Shift+Z redoes it.
    await nodeEl('thanks').focus();
    await page.keyboard.press('Control+z');
    await nodeEl('speak').waitFor();
    await saved((g) => linked(g, 'speak') && !g.nodes.some((n) => n.id === 'thanks'), 'the old name back');
    await nodeEl('speak').focus();
    await page.keyboard.press('Control+Shift+z');
    await nodeEl('thanks').waitFor();
    await saved((g) => linked(g, 'thanks'), 'the rename again');

    // A step added and typed into, then undone: the typing first (one undo step), then the step.
    await page.getByRole('button', { name: /^Add Hang up/ }).click();
    await nodeEl('hangup').waitFor();
    await saved((g) => g.nodes.some((n) => n.id === 'hangup'), 'the new step');
    await nodeEl('hangup').focus();
    await page.getByRole('button', { name: 'Undo' }).click();
    await nodeEl('hangup').waitFor({ state: 'detached' });
    await saved((g) => !g.nodes.some((n) => n.id === 'hangup') && linked(g, 'thanks'), 'the step gone');
    await page.getByRole('button', { name: 'Redo' }).click();
    await nodeEl('hangup').waitFor();
    await page.getByRole('button', { name: 'Undo' }).click();
    await nodeEl('hangup').waitFor({ state: 'detached' });
    await saved((g) => !g.nodes.some((n) => n.id === 'hangup'), 'the step gone again');

    // A reload keeps this workflow's history (this tab's sessionStorage): Redo brings the step back.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'PIN check' }).waitFor();
    await nodeEl('thanks').waitFor();
    await page.getByRole('button', { name: 'Redo' }).click();
    await nodeEl('hangup').waitFor();
    await saved((g) => g.nodes.some((n) => n.id === 'hangup'), 'the step redone after the reload');
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('button', { name: 'Undo' }).click();
    await nodeEl('speak').waitFor();
    await saved((g) => linked(g, 'speak'), 'the rename undone after the reload');
    await page.getByRole('button', { name: 'Redo' }).click();
    await nodeEl('thanks').waitFor();

    // Enter on the step already selected opens its Step tab from another tab.
    await pick('thanks');
    await tab('Versions');
    await panel().getByRole('region', { name: 'Step thanks' }).waitFor({ state: 'detached' });
    await nodeEl('thanks').focus();
    await page.keyboard.press('Enter');
    await panel().getByRole('region', { name: 'Step thanks' }).waitFor();
  }, 90_000);

  it('tidies the steps up by keyboard: laid out by depth without overlaps, saved, and undone', async () => {
    // The draft as the last test left it (its redo saved), the positions to come back to.
    await saved((g) => g.nodes.some((n) => n.id === 'thanks'), 'the redone rename');
    const before = await draft();
    const at = (g: Graph, id: string) => g.nodes.find((n) => n.id === id)!.position!;
    const tidied = (g: Graph) =>
      at(g, 'start').y < at(g, 'dtmf').y &&
      at(g, 'dtmf').y < at(g, 'thanks').y &&
      // end is reached both from Collect DTMF (timeout) and after thanks: it goes below thanks.
      at(g, 'thanks').y < at(g, 'end').y;
    const tidy = page.getByRole('button', { name: 'Tidy up' });
    await tidy.focus();
    await page.keyboard.press('Enter');
    await page.getByText(/^Laid out 4 steps by depth/).waitFor();
    await saved(tidied, 'the steps laid out by depth');
    // On the canvas, no step covers another.
    // (A string: the test's own types know no DOM.)
    const boxes = (await page.evaluate(`[...document.querySelectorAll('.react-flow__node')].map((el) => {
      const r = el.getBoundingClientRect();
      return { id: el.getAttribute('data-id'), x: r.x, y: r.y, w: r.width, h: r.height };
    })`)) as Array<{ id: string; x: number; y: number; w: number; h: number }>;
    expect(boxes).toHaveLength(4);
    for (const [i, a] of boxes.entries())
      for (const b of boxes.slice(i + 1))
        expect(
          a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h,
          `${a.id}/${b.id}`,
        ).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await browser.shot('editor-tidy');
    // Undo puts every step back where it was.
    await page.getByRole('button', { name: 'Undo' }).click();
    await saved(
      (g) => before.nodes.every((n) => JSON.stringify(at(g, n.id)) === JSON.stringify(n.position)),
      'the positions from before',
    );
    await page.getByRole('button', { name: 'Redo' }).click();
    await saved(tidied, 'the tidy redone');
  }, 60_000);

  it('talks to the published version over the realtime text socket', async () => {
    await tab('Talk to it');
    // Voice needs a microphone; this journey types (browser voice has its own journeys).
    await panel().getByLabel(/^Text/).check();
    await panel().getByRole('button', { name: 'Start a conversation' }).click();
    await panel().getByText('Enter your four digit PIN').waitFor();
    await panel().getByLabel('Your message').fill('dtmf:4321');
    await panel().getByRole('button', { name: 'Send' }).click();
    await panel().getByText('You entered 4321. Goodbye.').waitFor();
    await panel()
      .getByText(/Session ended/)
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(browser.problems).toEqual([]);
    await page.locator('.react-flow__controls-fitview').click();
    await browser.shot('editor-talk');
  }, 60_000);
});
