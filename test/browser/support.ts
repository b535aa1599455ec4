// Browser journeys against the real thing: `switchboard serve` (the built CLI) on a temporary data
// directory, and Debian's chromium driven by playwright-core. Also: the key and sign-in link the
// first start printed, axe-core run inside the page, Content-Security-Policy violations collected,
// and screenshots saved outside the repository (the folder is printed).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { isFresh, SERVER_SOURCES } from '../support/fresh-build.js';
import { freeSipPort, freeTcpPort } from '../support/sipp.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Debian's chromium, or null. Never a browser downloaded by playwright. */
export function chromiumPath(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

/**
 * Builds what `npm install` builds (the server's dist, the dashboard's web/dist, the voice page's
 * web-voice/dist) where a source is newer than the output, so the journey runs the current code. Asynchronously: a blocked worker misses vitest's own heartbeats.
 */
export async function buildAll(): Promise<void> {
  const at = (...p: string[]) => p.map((f) => path.join(ROOT, f));
  const server = SERVER_SOURCES;
  for (const [cmd, args, output, inputs] of [
    ['npx', ['tsc', '-p', 'tsconfig.build.json'], 'dist/src/main.js', server],
    // The dashboard imports the typed client and the node specs from src/.
    ['npm', ['run', 'build:web', '--silent'], 'web/dist/index.html', [...at('web'), ...server]],
    ['npm', ['run', 'build:web-voice', '--silent'], 'web-voice/dist/switchboard-web.js', at('web-voice')],
  ] as const) {
    if (isFresh(path.join(ROOT, output), inputs)) continue;
    await new Promise<void>((resolve, reject) => {
      // vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
      const env = { ...process.env, NODE_ENV: 'production' };
      const p = spawn(cmd, [...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (d: Buffer) => (out += d.toString()));
      p.stderr.on('data', (d: Buffer) => (out += d.toString()));
      p.on('error', reject);
      p.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} failed:\n${out}`)),
      );
    });
  }
}

export interface Server {
  base: string;
  sipPort: number;
  /** The key and sign-in link the first start printed. */
  key: string;
  signInLink: string;
  banner: string;
  dataDir: string;
  api<T = unknown>(
    method: string,
    pathName: string,
    body?: unknown,
    key?: string,
  ): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/**
 * `node bin/switchboard.js serve` on fresh ports and a fresh data directory; resolves once it listens.
 * A port taken between the check and serve's own bind (another process on the machine) costs one
 * more try on other ports, not the journey.
 */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(extraEnv);
    } catch (e) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String(e))) throw e;
    }
  }
}

async function startServerOnce(extraEnv: Record<string, string>): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-journey-'));
  const port = await freeTcpPort();
  const sipPort = await freeSipPort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/switchboard.js'), 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      SWITCHBOARD_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      SIP_HOST: '127.0.0.1',
      SIP_PORT: String(sipPort),
      SWITCHBOARD_NODE_ID: `journey-${sipPort}`,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      // The journeys click through pages faster than a person: the default 120 a minute would be a
      // 429 on the last pages (which the app shows, but the journey wants to see the pages).
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}\n${err}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Store:/.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}:\n${out}\n${err}`)));
  }).catch((e: unknown) => {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  });
  const key = /^\s+(pk_live_\S+)$/m.exec(banner)?.[1];
  const signInLink = /Sign in:\s+(\S+)/.exec(banner)?.[1];
  if (!key || !signInLink) throw new Error(`no key or sign-in link in the banner:\n${banner}`);
  return {
    base,
    sipPort,
    key,
    signInLink,
    banner,
    dataDir,
    async api<T>(method: string, pathName: string, body?: unknown, withKey = key) {
      const res = await fetch(`${base}/api/v1${pathName}`, {
        method,
        headers: {
          Authorization: `Bearer ${withKey}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  shots: string;
  /**
   * Content-Security-Policy violations, page errors, pages wider than a narrow shot's width, and a
   * narrow shot's top bar taller than its links.
   */
  problems: string[];
  /** A full-page screenshot; with `width` (e.g. 390, a phone) taken at that width, then the desktop's restored. */
  shot(name: string, width?: number): Promise<string>;
  close(): Promise<void>;
}

/** Chromium with a fresh profile, the flags a shared CI machine needs, and a screenshots folder. */
export async function openBrowser(
  executablePath: string,
  suite: string,
  extraArgs: string[] = [],
): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-chromium-'));
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-screens-${suite}-`));
  process.stdout.write(`${suite} journey screenshots: ${shots}\n`);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1360, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  let n = 0;
  return {
    context,
    page,
    shots,
    problems,
    async shot(name: string, width?: number) {
      const file = path.join(shots, `${String(++n).padStart(2, '0')}-${name}${width ? `-${width}` : ''}.png`);
      const desktop = page.viewportSize();
      if (width) await page.setViewportSize({ width, height: 844 });
      try {
        if (width) {
          // Nothing may widen the page past a phone's screen (it would scroll sideways).
          const wide = (await page.evaluate('document.documentElement.scrollWidth')) as number;
          if (wide > width) problems.push(`${name} is ${wide} px wide at ${width} px`);
          // The bar on top ends just under what it shows (the Menu button, or the open menu's Sign
          // out), however short the page.
          const band = (await page.evaluate(`(() => {
            const bar = document.querySelector('.sidebar');
            if (!bar) return 0;
            const shown = [...bar.querySelectorAll('*')].map((e) => e.getBoundingClientRect().bottom);
            return bar.getBoundingClientRect().bottom - Math.max(0, ...shown);
          })()`)) as number;
          if (band > 16) problems.push(`${name}: ${Math.round(band)} px of empty bar at ${width} px`);
        }
        await page.screenshot({ path: file, fullPage: true });
      } finally {
        if (width && desktop) await page.setViewportSize(desktop);
      }
      return file;
    },
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Serious and critical axe-core violations on the page as it is now ("rule: target" lines). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern: nothing inline is added.
  await page.evaluate(axeSource);
  const results = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
    violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
  };
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The ids of a project and the workflow published in it. */
export interface Published {
  project: string;
  workflow: string;
}

/** A project and a workflow of `graph` in it, published, as a user makes them through the API. */
export async function publishedWorkflow(
  server: Server,
  names: { project: string; workflow: string },
  graph: unknown,
): Promise<Published> {
  const p = await server.api<{ data: { id: string } }>('POST', '/projects', { name: names.project });
  const w = await server.api<{ data: { id: string } }>('POST', '/workflows', {
    project_id: p.body.data.id,
    name: names.workflow,
    graph,
  });
  const published = await server.api('POST', `/workflows/${w.body.data.id}/publish`);
  if (published.status !== 200) throw new Error(`publish answered ${published.status}`);
  return { project: p.body.data.id, workflow: w.body.data.id };
}

/**
 * A web session of the workflow, joined on its join page: Start call pressed and the page saying
 * it is connected. Resolves with the session's id.
 */
export async function joinCall(
  page: Page,
  server: Server,
  ids: Published,
  connectTimeoutMs?: number,
): Promise<string> {
  const s = await server.api<{ data: { id: string; join_url: string } }>('POST', '/sessions', {
    project_id: ids.project,
    workflow_id: ids.workflow,
  });
  await page.goto(s.body.data.join_url);
  await page.getByRole('button', { name: 'Start call' }).click();
  await page
    .getByText('Connected: speak any time.')
    .waitFor(connectTimeoutMs ? { timeout: connectTimeoutMs } : {});
  return s.body.data.id;
}
