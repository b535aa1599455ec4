// The /join page in Debian's chromium against a real `switchboard serve`, for what needs no audio
// path: a link checked before any prompt (expired, broken, already ended, missing), and a refused
// microphone told plainly with a way to try again. The page's CSP must hold (no violations) and
// axe-core finds nothing serious. The calls themselves (audio, keypad, speech, TURN) are in
// web-voice.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
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
// Under CI a missing chromium fails the suite instead of skipping it.
const journey = executable !== null || process.env.CI ? describe : describe.skip;

const MENU = JSON.parse(
  fs.readFileSync(new URL('../fixtures/graphs/pin-menu.json', import.meta.url), 'utf8'),
) as unknown;

interface Minted {
  id: string;
  join_token: string;
  join_url: string;
}

journey('the join page (chromium)', () => {
  let server: Server;
  let shortLived: Server;
  let browser: Browser;
  let project = '';
  let workflow = '';

  const mint = async (s: Server, p = project, w = workflow): Promise<Minted> => {
    const r = await s.api<{ data: Minted }>('POST', '/sessions', { project_id: p, workflow_id: w });
    expect(r.status).toBe(201);
    return r.body.data;
  };
  const publishMenu = async (s: Server): Promise<[string, string]> => {
    const p = await s.api<{ data: { id: string } }>('POST', '/projects', { name: 'Web' });
    const w = await s.api<{ data: { id: string } }>('POST', '/workflows', {
      project_id: p.body.data.id,
      name: 'Menu',
      graph: MENU,
    });
    expect((await s.api('POST', `/workflows/${w.body.data.id}/publish`)).status).toBe(200);
    return [p.body.data.id, w.body.data.id];
  };

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium)');
    await buildAll();
    server = await startServer();
    shortLived = await startServer({ JOIN_TOKEN_TTL_SECONDS: '1' });
    [project, workflow] = await publishMenu(server);
    // A microphone exists, but every prompt for it is refused.
    browser = await openBrowser(executable, 'join-page', [
      '--use-fake-device-for-media-stream',
      '--deny-permission-prompts',
    ]);
    await browser.page.setViewportSize({ width: 520, height: 760 });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await shortLived?.stop();
  });

  it('checks the link first, then tells a refused microphone plainly and offers to try again', async () => {
    const { page } = browser;
    const s = await mint(server);
    expect(s.join_url).toBe(`${server.base}/join#token=${s.join_token}`);
    await page.goto(s.join_url);
    await page.getByText('Ready when you are').waitFor();
    // The token left the address bar (no bookmark or copied link carries it).
    expect(page.url()).toBe(`${server.base}/join`);
    const start = page.getByRole('button', { name: 'Start call' });
    expect(await start.isEnabled()).toBe(true);
    await browser.shot('join-ready');
    expect(await seriousViolations(page)).toEqual([]);

    await start.click();
    await page.getByText('Microphone access was refused').waitFor();
    expect(await page.getByRole('button', { name: 'Try again' }).isEnabled()).toBe(true);
    await browser.shot('join-microphone-refused');
    // Nothing joined: the session is still waiting for its caller.
    const after = await server.api<{ data: { status: string } }>('GET', `/sessions/${s.id}`);
    expect(after.body.data.status).toBe('pending');
    expect(browser.problems).toEqual([]);
  }, 60_000);

  it('says when the link has expired, is broken, has ended or has no token', async () => {
    const { page } = browser;
    const [p, w] = await publishMenu(shortLived);
    const old = await mint(shortLived, p, w);
    // Wait (on the server's answer, not a fixed time) until the one-second token has expired.
    for (;;) {
      const r = await fetch(`${shortLived.base}/api/v1/join-info`, {
        headers: { Authorization: `Bearer ${old.join_token}` },
      });
      if (r.status === 401) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await page.goto(old.join_url);
    await page.getByText('This call link has expired. Ask for a new one.').waitFor();
    expect(await page.getByRole('button', { name: 'Start call' }).isVisible()).toBe(false);
    await browser.shot('join-expired');

    const s = await mint(server);
    await page.goto(`${server.base}/join#token=${s.join_token.slice(0, -6)}AAAAAA`);
    await page.getByText('This call link is not valid.').waitFor();

    expect((await server.api('DELETE', `/sessions/${s.id}`)).status).toBe(204);
    await page.goto(s.join_url);
    await page.getByText('This call has already ended.').waitFor();

    await page.goto(`${server.base}/join`);
    await page.getByText('This page needs a call link with a token').waitFor();
    expect(browser.problems).toEqual([]);
  }, 60_000);
});
