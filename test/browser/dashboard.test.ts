// The dashboard in a real browser against a real server: sign in with the key the first start
// printed; telephony set up through the pages and a sipp call answered by a published workflow
// that dials a second sipp, showing in Calls with its transcript, its leg and the signed call
// events it sent; a webhook endpoint whose secret shows once, whose failed delivery shows its
// response and is redelivered; a key created and revoked, refused at once.
// Every page visited is checked with axe-core (no serious or critical violations) and for
// Content-Security-Policy violations; screenshots go to a temp folder (printed).
import http from 'node:http';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { verifyWebhook } from '../../src/events/verify-webhook.js';
import { startReceiver as startRecorder, type Receiver as Recorder } from '../support/receiver.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs, sippUasArgs } from '../support/sipp.js';
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
const haveChromium = executable !== null;
// Under CI a missing chromium (or sipp) fails the suite instead of skipping it.
const journey = (haveChromium && haveSipp()) || process.env.CI ? describe : describe.skip;

const PIN_MENU = JSON.parse(
  fs.readFileSync(new URL('../fixtures/graphs/pin-menu.json', import.meta.url), 'utf8'),
) as { nodes: unknown[]; edges: Array<{ source: string; target: string }> };
/** The number the menu dials after its answer (through the trunk, to a sipp that answers). */
const DESK = '+15551230000';
/** The PIN menu, whose "other" branch then dials the desk: the call's page shows the leg too. */
const MENU = {
  nodes: [...PIN_MENU.nodes, { id: 'desk', type: 'dial', config: { to: DESK, ring_timeout_seconds: 20 } }],
  edges: [
    ...PIN_MENU.edges.filter((e) => e.source !== 'other'),
    { source: 'other', target: 'desk' },
    ...['answered', 'no_answer', 'busy', 'failed'].map((h) => ({
      source: 'desk',
      source_handle: h,
      target: 'bye',
    })),
  ],
};

interface Receiver {
  url: string;
  received: number;
  status: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state = { received: 0, status: 500 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received++;
      res.writeHead(state.status, { 'Content-Type': 'application/json' });
      res.end(state.status === 500 ? '{"error":"receiver down for maintenance"}' : '{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks/switchboard`,
    get received() {
      return state.received;
    },
    get status() {
      return state.status;
    },
    set status(s: number) {
      state.status = s;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function until<T>(
  read: () => Promise<T | null | undefined | false>,
  what: string,
  tries = 150,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await read();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Tables wider than the box that holds them (clipped, or scrolled sideways): run in the page. */
const overflowingTables = `[...document.querySelectorAll('main table')]
  .filter((t) => t.scrollWidth > (t.closest('.table-wrap') ?? t.parentElement).clientWidth + 1)
  .map((t) => t.getAttribute('aria-label') || t.closest('[aria-label]')?.getAttribute('aria-label'))`;

journey('dashboard journeys in chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let workflowId = '';
  /** Where the trunk sends calls: the desk's sipp. */
  let deskPort = 0;
  let callHooks: Recorder | undefined;

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium); CI needs it');
    if (!haveSipp()) throw new Error('sipp is not installed (apt-get install sip-tester); CI needs it');
    await buildAll();
    server = await startServer();
    deskPort = await freeUdpPort();
    browser = await openBrowser(executable, 'dashboard');
    page = browser.page;
  }, 420_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callHooks?.close();
  });

  /** Checks the page as it is with axe-core and for CSP violations, then saves a screenshot. */
  const check = async (name: string) => {
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
    expect(browser.problems, `CSP and page errors by ${name}`).toEqual([]);
    await browser.shot(name);
    await browser.shot(name, 390);
    expect(browser.problems, `${name} at 390 px`).toEqual([]);
  };
  const heading = (text: string) => page.getByRole('heading', { level: 1, name: text }).waitFor();
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

  it('signs in with the link npm start printed, keeps the key out of the address bar, and starts with a skip link', async () => {
    expect(server.banner).toContain(`Dashboard:  ${server.base}/`);
    expect(server.signInLink).toBe(`${server.base}/#key=${server.key}`);
    await page.goto(server.signInLink);
    await heading('Overview');
    expect(page.url()).toBe(`${server.base}/`);
    expect(await page.evaluate("sessionStorage.getItem('switchboard.apiKey')")).toBe(server.key);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe(
      'Skip to content',
    );
    await check('overview');

    // On a phone the navigation folds into a Menu button: the page starts right under the bar.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const mainNav = page.getByRole('navigation', { name: 'Main' });
      expect(await mainNav.isVisible()).toBe(false);
      expect((await page.locator('#main').boundingBox())!.y).toBeLessThan(80);
      await page.getByRole('button', { name: 'Menu' }).click();
      expect(await page.getByRole('button', { name: 'Close' }).getAttribute('aria-expanded')).toBe('true');
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      // The pointer still on the button, then on Sign out: hovered, both stay readable on the dark bar.
      expect(await seriousViolations(page), 'axe with the menu open at 390 px').toEqual([]);
      await page.getByRole('button', { name: 'Sign out' }).hover();
      expect(await seriousViolations(page), 'axe on a hovered Sign out').toEqual([]);
      await browser.shot('menu-open', 390);
      await page.keyboard.press('Escape');
      expect(await mainNav.isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Menu' }).click();
      await nav('Projects');
      await heading('Projects');
      expect(await mainNav.isVisible()).toBe(false);
      expect(browser.problems, 'the menu at 390 px').toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1360, height: 900 });
    }
  }, 60_000);

  it('creates a project, a trunk (a 422 shown beside its field first), a number and a dispatch rule, and tests the rule', async () => {
    await nav('Projects');
    await heading('Projects');
    await page.getByRole('button', { name: 'New project' }).click();
    const projectForm = page.getByRole('form', { name: 'New project' });
    await projectForm.getByLabel('Name', { exact: true }).fill('Front desk');
    await projectForm.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('cell', { name: 'Front desk' }).waitFor();
    await check('projects');

    const projects = await server.api<{ data: Array<{ id: string }> }>('GET', '/projects');
    projectId = projects.body.data[0]!.id;
    const created = await server.api<{ data: { id: string } }>('POST', '/workflows', {
      project_id: projectId,
      name: 'Menu',
      graph: MENU,
    });
    workflowId = created.body.data.id;
    expect((await server.api('POST', `/workflows/${workflowId}/publish`)).status).toBe(200);

    await nav('SIP trunks');
    await heading('SIP trunks');
    await page.getByRole('button', { name: 'New trunk' }).click();
    const trunkForm = page.getByRole('form', { name: 'New trunk' });
    await trunkForm.getByLabel('Name', { exact: true }).fill('Carrier');
    await trunkForm.getByLabel('Termination URI').fill('not a uri');
    await trunkForm.getByLabel('Username').fill('sb');
    await trunkForm.getByLabel('Password').fill('change-me');
    await trunkForm.getByRole('button', { name: 'Create trunk' }).click();
    const uriError = trunkForm.locator('[data-field="termination_uri"] .field-error');
    await uriError.waitFor();
    expect(await trunkForm.getByLabel('Termination URI').getAttribute('aria-invalid')).toBe('true');
    expect(await trunkForm.getByLabel('Name', { exact: true }).inputValue()).toBe('Carrier');
    await check('trunk-validation');
    await trunkForm.getByLabel('Termination URI').fill(`sip:127.0.0.1:${deskPort}`);
    await trunkForm.getByRole('button', { name: 'Create trunk' }).click();
    await heading('Carrier');
    const origination = (await page.getByTestId('origination-uri').textContent())!;
    expect(origination).toMatch(/^sip:[a-z0-9-]+\.sip\.localhost;transport=udp$/);
    await check('trunk');

    await nav('Phone numbers');
    await page.getByRole('button', { name: 'Register number' }).click();
    const numberForm = page.getByRole('form', { name: 'Register a number' });
    await numberForm.getByLabel('Number (E.164)').fill('+14155550100');
    await numberForm.getByLabel('Label (optional)').fill('Front desk line');
    await numberForm.getByRole('button', { name: 'Register number' }).click();
    await heading('+14155550100');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.getByRole('region', { name: 'Rule 1' });
    await rule.getByLabel('Workflow').selectOption({ label: 'Menu (v1)' });
    await rule.getByRole('button', { name: 'Add variable' }).click();
    await rule.getByLabel('Variables for the workflow 1 name').fill('name');
    await rule.getByLabel('Variables for the workflow 1 value').fill('Ann');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.getByText('Saved. New calls use these rules now.').waitFor();

    await page.getByLabel('Caller', { exact: true }).fill('+4930123456');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByText('Rule 1 answers: Menu').waitFor();
    await check('number-dispatch');

    const stored = await server.api<{ data: Array<{ dispatch_rules: unknown[] }> }>('GET', '/phone-numbers');
    expect(stored.body.data[0]!.dispatch_rules).toEqual([
      { workflow_id: workflowId, priority: 100, variables: { name: 'Ann' } },
    ]);

    // The project's call events go to a receiver that takes them (200) and keeps what it got.
    callHooks = await startRecorder((_req, res) => res.writeHead(200).end());
    const hook = await server.api<{ data: { secret: string } }>('POST', '/webhook-endpoints', {
      project_id: projectId,
      url: `${callHooks.url}/hooks/calls`,
      events: ['call.started', 'call.ended'],
    });
    expect(hook.status).toBe(201);

    // The carrier calls the number: the published menu answers, the caller presses 2, the menu
    // dials the desk through the trunk, the desk answers and hangs up, and the menu hangs up.
    const desk = sipp(
      sippUasArgs(
        scenarioFile('outbound-ring-answer.xml', { RING_MS: 1000, TALK_MS: 1500 }),
        deskPort,
        await freeUdpPort(),
      ),
    );
    const host = origination.replace(/^sip:|;.*$/g, '');
    const scenario = scenarioFile('inbound-in-dialog.xml', {
      DIALLED: '+14155550100',
      DOMAIN: host,
      CALLER: '+4930123456',
    });
    const peer = sipp(
      sippArgs(`127.0.0.1:${server.sipPort}`, scenario, await freeUdpPort(), [
        '-p',
        String(await freeUdpPort()),
      ]),
    );
    const result = await peer.done;
    expect(result.code, result.out).toBe(0);
    const deskResult = await desk.done;
    expect(deskResult.code, deskResult.out).toBe(0);

    await nav('Calls');
    await heading('Calls');
    // The caller's call (its leg to the desk is a row of its own).
    const row = page.getByRole('row').filter({ hasText: '+4930123456' }).filter({ hasText: '+14155550100' });
    await until(
      async () => (await row.getByText('completed').count()) > 0 || (await page.reload(), false),
      'the call to show completed',
    );
    // The row links to the call (its time) and to the workflow that ran ("Menu · v1").
    await row.locator('a[href^="/calls/"]').click();
    await heading('Inbound call +4930123456 → +14155550100');
    const callId = /\/calls\/([^/?#]+)/.exec(page.url())![1]!;
    // Both call events, delivered at the first attempt, with the receiver's answer (the leg's own
    // events are on the leg's page).
    const events = page.getByRole('region', { name: 'Webhook events' });
    await until(
      async () => (await events.getByText('Succeeded').count()) >= 2 || (await page.reload(), false),
      'both call events delivered',
    );
    const eventRows =
      (await page.evaluate(`[...document.querySelectorAll('section[aria-labelledby="events-title"] tbody tr')]
      .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent).join(' | '))`)) as string[];
    expect(eventRows.sort()).toEqual([
      'call.ended | Succeeded1 attempt | 200',
      'call.started | Succeeded1 attempt | 200',
    ]);
    // What the receiver got is signed with the endpoint's secret: this call's events and its leg's.
    const got = callHooks.received.map((r) => verifyWebhook(r.body, r.headers, hook.body.data.secret));
    // (The leg's are marked by this call as their parent.)
    expect(got.map((e) => [e.type, e.data.id === callId ? 'call' : e.data.parent_call_id]).sort()).toEqual([
      ['call.ended', callId],
      ['call.ended', 'call'],
      ['call.started', callId],
      ['call.started', 'call'],
    ]);
    // The transcript's line (the timeline quotes it too).
    await page.getByText('You chose 2.', { exact: true }).waitFor();
    // The key the caller pressed is in the transcript, between the prompt and the answer, as a key.
    // The caller's sipp presses it about a second in, so the prompt is usually cut short: marked
    // so, however much of it was heard (the words as seen, without what is only read out).
    // (A string: the test's own types know no DOM.)
    expect(
      await page.evaluate(`[...document.querySelectorAll('ol.transcript > li')].map((li) => {
        const keys = [...li.querySelectorAll('kbd')].map((k) => k.textContent);
        if (keys.length) return 'keys ' + keys.join(' ');
        const seen = li.lastElementChild.cloneNode(true);
        seen.querySelectorAll('.sr-only').forEach((e) => e.remove());
        return seen.textContent;
      })`),
    ).toEqual([
      expect.stringMatching(/^Press 1 for sales, 2 for support(?: \(interrupted\))?$/),
      'keys 2',
      'You chose 2.',
    ]);
    await page.getByText('workflow hangup').first().waitFor();
    // The timeline tells the call's story: its states, and each step of the workflow with what it
    // said and the key pressed in it, read from the conversation's steps.
    const entries = async () =>
      (await page.evaluate(`[...document.querySelectorAll('ol.call-timeline > li')].map((li) => [
        li.querySelector('.tl-title strong').textContent,
        li.querySelector('.tl-ref')?.textContent ?? '',
        [...li.querySelectorAll('kbd')].map((k) => k.textContent).join(''),
        ...[...li.querySelectorAll('.tl-detail')].map((d) => d.textContent),
      ].join(' | '))`)) as string[];
    await until(
      async () => (await entries()).some((e) => e.startsWith('End | bye')) || (await page.reload(), false),
      'the last step in the timeline',
    );
    // The webhooks sit by the answer and the end; where exactly within the same second is not fixed.
    const hooksOnTimeline = (await entries()).filter((e) => e.startsWith('Webhook '));
    expect(hooksOnTimeline).toEqual(['Webhook call.started |  | ', 'Webhook call.ended |  | ']);
    // The leg the menu dialled, answered by the desk, which hung up.
    expect((await entries()).filter((e) => e.startsWith('Dialled '))).toEqual([
      expect.stringMatching(/^Dialled \+15551230000 \|/),
    ]);
    expect((await entries()).filter((e) => !/^(Webhook|Dialled) /.test(e))).toEqual([
      'Call arrived |  | ',
      'Answered |  | ',
      'Workflow started |  | ',
      expect.stringMatching(
        /^Collect DTMF \| ask \| 2 \| “Press 1 for sales, 2 for support” \| Left by success/,
      ),
      expect.stringMatching(/^Condition \| route \| {2}\| Left by next$/),
      // The speak step's template as it was said (the conversation's line), not as written.
      expect.stringMatching(/^Speak \| other \| {2}\| “You chose 2\.” \| Left by next/),
      expect.stringMatching(/^Dial \| desk \| {2}\| /),
      'End | bye | ',
      expect.stringMatching(/^Ended: completed \| {2}\| {2}\| workflow hangup/),
    ]);
    // The workflow that answered, by its name and version.
    await page
      .getByRole('region', { name: 'Details' })
      .getByRole('link', { name: 'Menu · version 1' })
      .waitFor();
    // The events table fits its card in the side column and on a phone.
    for (const width of [1360, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await page.evaluate(overflowingTables), `tables wider than their card at ${width} px`).toEqual(
        [],
      );
    }
    await page.setViewportSize({ width: 1360, height: 900 });
    await check('call');

    // The call's session, and from it the conversation: the same transcript, each on its own page.
    await page.getByRole('region', { name: 'Details' }).locator('a[href^="/sessions/"]').click();
    await heading('Phone session');
    await page.getByText('You chose 2.').waitFor();
    await page
      .getByRole('region', { name: 'Details' })
      .getByRole('link', { name: 'Menu · version 1' })
      .waitFor();
    await check('session');
    await page.getByRole('link', { name: /\d+ messages/ }).click();
    await heading('Conversation');
    await page.getByText('You chose 2.').waitFor();
    await check('conversation');
  }, 180_000);

  it('creates a webhook endpoint, shows its secret once, logs a failed delivery with its response, and redelivers it', async () => {
    const receiver = await startReceiver();
    try {
      await nav('Webhooks');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const form = page.getByRole('form', { name: 'New webhook endpoint' });
      await form.getByLabel('URL').fill(receiver.url);
      await form.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = (await page.getByTestId('secret-value').textContent())!;
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      await check('webhook-secret');
      await page.getByRole('button', { name: 'I have copied it' }).click();
      expect(await page.getByTestId('secret-value').count()).toBe(0);
      await page.getByRole('link', { name: receiver.url }).click();
      await heading(receiver.url);
      expect(await page.content()).not.toContain(secret);

      // An event: a web session minted and force-ended (session.ended), refused by the receiver.
      const session = await server.api<{ data: { id: string } }>('POST', '/sessions', {
        project_id: projectId,
        workflow_id: workflowId,
      });
      expect((await server.api('DELETE', `/sessions/${session.body.data.id}`)).status).toBe(204);
      await until(async () => receiver.received >= 1, 'the first attempt');
      const delivery = page.locator('details.delivery').first();
      await until(
        async () => (
          await page.getByRole('button', { name: 'Refresh' }).click(),
          (await delivery.count()) > 0 && (await delivery.getAttribute('data-status')) === 'pending'
        ),
        'the failed attempt in the log',
      );
      await delivery.locator('summary').click();
      await delivery.getByText('HTTP 500').first().waitFor();
      await delivery.getByText('receiver down for maintenance').first().waitFor();
      await check('delivery-failed');

      // Pausing turns the waiting delivery `failed`; once resumed it can be redelivered.
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('button', { name: 'Resume' }).waitFor();
      await until(
        async () => (
          await page.getByRole('button', { name: 'Refresh' }).click(),
          (await page.locator('details.delivery[data-status="failed"]').count()) > 0
        ),
        'the delivery to be failed',
      );
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByRole('button', { name: 'Pause' }).waitFor();
      receiver.status = 200;
      const failed = page.locator('details.delivery[data-status="failed"]').first();
      await failed.locator('summary').click();
      await failed.getByRole('button', { name: 'Redeliver' }).click();
      await failed.getByRole('button', { name: 'Redeliver now' }).click();
      await until(async () => receiver.received >= 2, 'the redelivery');
      await until(
        async () => (
          await page.getByRole('button', { name: 'Refresh' }).click(),
          (await page.locator('details.delivery[data-status="succeeded"]').count()) > 0
        ),
        'the delivery to succeed',
      );
      await check('delivery-redelivered');
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('creates a key (shown once), whose missing scope is explained, and revokes it: refused at once', async () => {
    await nav('API keys');
    await heading('API keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name', { exact: true }).fill('Read only');
    await form.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('secret-value').textContent())!;
    expect(key).toMatch(/^pk_live_/);
    await check('key-created');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect((await server.api('GET', '/projects', undefined, key)).status).toBe(200);

    // Signed in with the read-only key, creating a trunk is explained, not just refused.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('API keys'); // signing in stays where the tab was
    await nav('SIP trunks');
    await page.getByRole('cell', { name: 'Carrier', exact: true }).waitFor();
    await page.getByRole('button', { name: 'New trunk' }).click();
    const trunkForm = page.getByRole('form', { name: 'New trunk' });
    await trunkForm.getByLabel('Name', { exact: true }).fill('Second');
    await trunkForm.getByRole('button', { name: 'Create trunk' }).click();
    await trunkForm.getByText('This key lacks the "telephony" scope').waitFor();
    await check('forbidden');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').fill(server.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('SIP trunks');
    await nav('API keys');
    const row = page.getByRole('row').filter({ hasText: 'Read only' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke' }).click();
    await until(
      async () => (await page.getByRole('row').filter({ hasText: 'Read only' }).count()) === 0,
      'the key to leave the list',
    );
    expect((await server.api('GET', '/projects', undefined, key)).status).toBe(401);
    await check('keys');
  }, 90_000);

  it('shows every other page without serious axe violations', async () => {
    // A few sessions beside the call the carrier made, so Usage has something to chart.
    for (let i = 0; i < 3; i++) {
      const r = await server.api('POST', '/sessions', { project_id: projectId, workflow_id: workflowId });
      expect(r.status).toBe(201);
    }
    for (const [link, title] of [
      ['Workflows', 'Workflows'],
      ['Agents', 'Agents'],
      ['Sessions', 'Sessions'],
      ['Conversations', 'Conversations'],
      ['Usage', 'Usage'],
    ] as const) {
      await nav(link);
      await heading(title);
      if (title === 'Usage') {
        // The chart and the tables show this workspace's real numbers: the call and four sessions,
        // the sessions per day as bars, and what each provider metered (the speech's characters).
        await page.getByRole('table', { name: 'What each project used' }).waitFor();
        await page.getByRole('img', { name: 'Calls per day, as bars' }).waitFor();
        expect(await page.getByRole('list', { name: 'Calls by project' }).textContent()).toContain(
          'Front desk',
        );
        await page.getByLabel('Chart').selectOption('sessions');
        await page.getByRole('img', { name: 'Sessions per day, as bars' }).waitFor();
        const metered = page.getByRole('table', { name: 'What each provider metered' });
        expect(await metered.textContent()).toContain('Text-to-speech characters');
        // Nothing on the page is wider than the window, at 1280 px or on a phone: no clipped table.
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          expect(
            await page.evaluate(overflowingTables),
            `tables wider than their card at ${width} px`,
          ).toEqual([]);
        }
        await page.setViewportSize({ width: 1360, height: 900 });
      }
      await check(title.toLowerCase());
    }
    await page.goto(`${server.base}/agents/new`);
    await heading('New agent');
    await check('agent-new');
  }, 90_000);
});
