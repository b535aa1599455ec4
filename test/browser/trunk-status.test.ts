// A trunk's live state in the Telephony pages, from real SIP: one trunk whose carrier is down (its
// health check points at a UDP port nothing listens on, so the service's OPTIONS pings go
// unanswered and mark it down) and one whose registration fails (sipp as a registrar refusing
// the password). Both show in the trunk list and on the trunk's page, with axe-core checked and
// screenshots at desktop and phone width. Each wait is on what the page shows, never a timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs, type Peer } from '../support/sipp.js';
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
const journey = (executable && haveSipp()) || process.env.CI ? describe : describe.skip;

journey('trunk status in chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let registrar: Peer | null = null;

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium); CI needs it');
    if (!haveSipp()) throw new Error('sipp is not installed (apt-get install sip-tester); CI needs it');
    await buildAll();
    // Re-read the trunks every second and ping every 5 s (the least allowed), so "down" comes soon.
    server = await startServer({ SIP_TRUNK_SYNC_SECONDS: '1', SIP_OPTIONS_INTERVAL_SECONDS: '5' });
    browser = await openBrowser(executable, 'trunks');
    page = browser.page;
    await server.api('POST', '/projects', { name: 'Front desk' });
    await page.goto(server.signInLink);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 600_000);

  afterAll(async () => {
    registrar?.kill();
    await browser?.close();
    await server?.stop();
  });

  const check = async (name: string) => {
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
    await browser.shot(name);
    await browser.shot(name, 390);
    expect(browser.problems, name).toEqual([]);
  };
  /** Reloads until `text` shows: the pages read the trunk as the SIP node last wrote it. */
  const untilShown = async (locate: () => Locator, what: string) => {
    for (let i = 0; i < 120; i++) {
      if ((await locate().count()) > 0) return;
      await page.waitForTimeout(500);
      await page.reload();
    }
    throw new Error(`the page never showed ${what}`);
  };

  it('shows a carrier that does not answer OPTIONS as down, in the list and on the trunk page', async () => {
    const closed = await freeUdpPort();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SIP trunks' }).click();
    await page.getByRole('button', { name: 'New trunk' }).click();
    const form = page.getByRole('form', { name: 'New trunk' });
    await form.getByLabel('Name', { exact: true }).fill('Silent carrier');
    await form.getByLabel('Termination URI').fill(`sip:127.0.0.1:${closed}`);
    await form.getByLabel('Username').fill('sb');
    await form.getByLabel('Password').fill('change-me');
    await form.getByLabel('Check that the carrier is up').check();
    await form.getByRole('button', { name: 'Create trunk' }).click();
    await page.getByRole('heading', { level: 1, name: 'Silent carrier' }).waitFor();
    const status = () => page.getByRole('definition').filter({ hasText: /^Down$/ });
    await untilShown(status, 'carrier health down');
    const stored = await server.api<{ data: Array<{ name: string; health: string }> }>('GET', '/sip-trunks');
    expect(stored.body.data.find((t) => t.name === 'Silent carrier')?.health).toBe('down');
    await check('trunk-down');
  }, 120_000);

  it('shows a registration the carrier refused as failed, with its reason', async () => {
    const port = await freeUdpPort();
    const scenario = scenarioFile('registrar-refuse.xml', { PASSWORD: 'the-right-one' }, 'trunks');
    registrar = sipp(sippUasArgs(scenario, port, await freeUdpPort()));
    const created = await server.api<{ data: { id: string } }>('POST', '/sip-trunks', {
      name: 'Registering carrier',
      provider: 'generic',
      transport: 'udp',
      termination_uri: `sip:127.0.0.1:${port}`,
      auth_username: 'switchboard',
      auth_password: 'not-the-password',
      register: true,
    });
    expect(created.status).toBe(201);
    const result = await registrar.done;
    registrar = null;
    expect(result.code, result.out).toBe(0);

    await page.goto(`${server.base}/telephony/trunks/${created.body.data.id}`);
    await page.getByRole('heading', { level: 1, name: 'Registering carrier' }).waitFor();
    await untilShown(
      () => page.getByText('401 Unauthorized: the registrar refused the credentials'),
      'the refusal',
    );
    await page
      .getByRole('definition')
      .filter({ hasText: /^Failed/ })
      .waitFor();
    await check('trunk-registration-failed');
    // On a phone the status comes first, above the long settings form; on a desktop it is beside it.
    const top = async (selector: string) => (await page.locator(selector).boundingBox())!;
    await page.setViewportSize({ width: 390, height: 844 });
    const narrow = { status: await top('.trunk-status-card'), form: await top('.trunk-settings-card') };
    expect(narrow.status.y + narrow.status.height).toBeLessThanOrEqual(narrow.form.y);
    await page.setViewportSize({ width: 1360, height: 900 });
    const wide = { status: await top('.trunk-status-card'), form: await top('.trunk-settings-card') };
    expect(wide.status.x).toBeGreaterThan(wide.form.x + wide.form.width);
    expect(wide.status.y).toBe(wide.form.y);

    // The list: both trunks' states side by side.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SIP trunks' }).click();
    const row = (name: string) => page.getByRole('row').filter({ hasText: name });
    await row('Silent carrier').getByText('carrier down').waitFor();
    await row('Registering carrier').getByText('failed').waitFor();
    await check('trunks-status');
  }, 120_000);
});
