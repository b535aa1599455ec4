// The architecture rules of eslint.config.js bite: ESLint's own API lints small files placed in the
// rooms (they need not exist on disk) and must report each wrong import, and only the wrong ones.
// Removing or loosening a rule fails this suite, as does a folder of src/ that no room claims.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Room {
  name: string;
  path: string | string[];
  may: string[] | '*';
}

let eslint: ESLint;
let rooms: Room[];

beforeAll(async () => {
  eslint = new ESLint({ cwd: ROOT });
  const layers = (await import(pathToFileURL(path.join(ROOT, 'lint/layers.js')).href)) as { ROOMS: Room[] };
  rooms = layers.ROOMS;
});

/** The rule ids ESLint reports for `code` as if it were the file at `file`. */
async function ruleIds(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const importing = (from: string) => `import * as probe from '${from}';\nexport const used = probe;\n`;

// The first lint loads the typed ESLint configuration, which takes long on a loaded machine.
describe('layers: production code imports only downward', { timeout: 120_000 }, () => {
  it.each([
    ['src/shared/probe.ts', '../api/app.js', 'shared → api'],
    ['src/store/probe.ts', '../api/app.js', 'store → api (paging used to live there)'],
    ['src/modules/projects/probe.ts', '../../api/app.js', 'modules → api'],
    ['src/events/probe.ts', '../modules/sessions/session-lifecycle.js', 'events → modules'],
    ['src/providers/tts/probe.ts', '../../telephony/media/rtp-session.js', 'providers → telephony'],
    [
      'src/modules/phone-numbers/probe.ts',
      '../../telephony/calls/node/telephony-node.js',
      'modules → telephony',
    ],
    ['src/engine/probe.ts', '../modules/services.js', 'engine → modules'],
    ['src/channels/voice/probe.ts', '../phone-channel.js', 'voice → a channel (not a contract)'],
    ['src/channels/web-media.ts', './voice/turn-assembler.js', 'a contract → the voice pipeline above it'],
    ['src/api/probe.ts', '../telephony/calls/node/telephony-node.js', 'api → telephony'],
    ['src/wiring/probe.ts', '../api/app.js', 'wiring → api'],
    ['src/workflow/probe.ts', '../engine/interpreter.js', 'workflow (pure) → engine'],
  ])('%s importing %s is refused (%s)', async (file, from) => {
    expect(await ruleIds(file, importing(from))).toEqual(['import-x/no-restricted-paths']);
  });

  it.each([
    ['src/engine/probe.ts', '../providers/llm/scripted.js'],
    ['src/engine/probe.ts', '../workflow/validate.js'],
    ['src/channels/voice/probe.ts', '../channel.js'],
    ['src/channels/phone-channel.ts', './voice/voice-pipeline.js'],
    ['src/providers/tts/probe.ts', '../../audio/resampler.js'],
    ['src/modules/phone-numbers/probe.ts', './dispatch/evaluate.js'],
    ['src/main.ts', './cli/io.js'],
  ])('%s importing %s is fine', async (file, from) => {
    expect(await ruleIds(file, importing(from))).toEqual([]);
  });

  it('refuses an import circle', async () => {
    // validate.ts imports validate-shared.ts, so validate-shared.ts importing it closes a circle.
    expect(await ruleIds('src/workflow/validate-shared.ts', importing('./validate.js'))).toEqual([
      'import-x/no-cycle',
    ]);
  });
});

describe('test support: fixtures stay where they belong', () => {
  it.each([
    ['src/engine/probe.ts', './testing/describe-event.js', 'production → its own testing/'],
    ['src/engine/probe.ts', '../../test/support/stores.js', 'production → test/'],
    ['bench/probe.ts', '../src/engine/testing/describe-event.js', 'a benchmark → testing/'],
    [
      'src/channels/probe.test.ts',
      '../engine/testing/describe-event.js',
      "a test → another folder's testing/",
    ],
    ['test/e2e/probe.test.ts', '../integration/testing/telephony.js', "a test → another folder's testing/"],
    [
      'test/support/probe.ts',
      '../../src/engine/testing/describe-event.js',
      "shared support → a folder's testing/",
    ],
    ['test/support/probe.ts', '../e2e/testing/call-reads.js', "shared support → a folder's testing/"],
  ])('%s importing %s is refused (%s)', async (file, from) => {
    expect(await ruleIds(file, importing(from))).toEqual(['import-x/no-restricted-paths']);
  });

  it.each([
    ['src/engine/probe.test.ts', './testing/describe-event.js'],
    ['src/channels/probe.test.ts', '../../test/support/engine-harness.js'],
    ['src/events/testing/probe.ts', '../../../test/support/stores.js'],
    ['test/e2e/probe.test.ts', './testing/call-reads.js'],
    ['test/support/probe.ts', '../../src/engine/interpreter.js'],
  ])('%s importing %s is fine', async (file, from) => {
    expect(await ruleIds(file, importing(from))).toEqual([]);
  });
});

describe('the room table', () => {
  const roomPaths = () => rooms.flatMap((r) => [r.path].flat());

  it('claims every folder and file at the top of src/ (and of src/telephony/)', () => {
    const top = (dir: string) =>
      fs
        .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
        .map((e) => `${dir}/${e.name}`)
        .filter((p) => p !== 'src/telephony');
    const claimed = new Set(roomPaths());
    const unclaimed = [...top('src'), ...top('src/telephony')].filter((p) => !claimed.has(p));
    expect(unclaimed).toEqual([]);
  });

  it('names only paths that exist, and rooms lower in the table', () => {
    for (const p of roomPaths()) expect(fs.existsSync(path.join(ROOT, p)), p).toBe(true);
    rooms.forEach((room, i) => {
      if (room.may === '*') return;
      const below = new Set(rooms.slice(0, i).map((r) => r.name));
      for (const name of room.may) expect(below.has(name), `${room.name} → ${name}`).toBe(true);
    });
  });

  it('is the one ARCHITECTURE.md draws', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Layers'));
    const rows = [...section.matchAll(/^\| `([a-z-]+)` \| (.+?) \| (.+?) \|$/gm)].map((m) => ({
      name: m[1],
      may: m[3]!.trim() === 'everything' ? '*' : [...m[3]!.matchAll(/`([a-z-]+)`/g)].map((n) => n[1]),
    }));
    expect(rows).toEqual(rooms.map((r) => ({ name: r.name, may: r.may })));
  });
});
