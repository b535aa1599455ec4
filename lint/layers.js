// The rooms of src/ and which room may import which, as ESLint enforces them (eslint.config.js)
// and ARCHITECTURE.md draws them. Production code only imports downward: a room lists the rooms
// it may import, every one of them lower in the table. Tests and `testing/` folders may import
// any room; what they may not do is reach into another folder's `testing/` (see testingZones).
import fs from 'node:fs';
import path from 'node:path';

/** The repository, which every path here is relative to (the rules' basePath). */
export const root = path.dirname(import.meta.dirname);

/**
 * Bottom to top. `path` is a folder or file relative to the repository; `may` lists the rooms
 * its production files may import besides themselves.
 */
export const ROOMS = [
  { name: 'shared', path: 'src/shared', may: [] },
  { name: 'config', path: 'src/config', may: ['shared'] },
  { name: 'audio', path: 'src/audio', may: ['shared'] },
  { name: 'workflow', path: 'src/workflow', may: ['shared'] },
  { name: 'web-serving', path: 'src/web-serving', may: ['shared'] },
  { name: 'store', path: 'src/store', may: ['config', 'shared'] },
  { name: 'sip', path: 'src/telephony/sip', may: ['shared'] },
  { name: 'media', path: 'src/telephony/media', may: ['audio', 'shared'] },
  { name: 'providers', path: 'src/providers', may: ['audio', 'config', 'shared'] },
  { name: 'events', path: 'src/events', may: ['store', 'config', 'shared'] },
  // Operations: metrics and backups of the store, which the API and the commands use.
  { name: 'ops', path: 'src/ops', may: ['store', 'config', 'shared'] },
  // The channel contracts: what the engine asks of a channel, and the seams a call gives the phone
  // channel and a browser's peer connection the web channel. They sit below channels/voice/, the
  // pipeline both audio channels build on, which sits below the channels themselves: three rooms
  // in one folder, so that a reader finds every part of a channel under src/channels.
  {
    name: 'channel-contracts',
    path: ['src/channels/channel.ts', 'src/channels/call-media.ts', 'src/channels/web-media.ts'],
    may: ['providers', 'shared'],
  },
  // A browser's peer connection (node-datachannel), the WebPeer of the web channel's contract.
  { name: 'webrtc', path: 'src/webrtc', may: ['channel-contracts', 'media', 'audio', 'shared'] },
  { name: 'voice', path: 'src/channels/voice', may: ['channel-contracts', 'providers', 'audio', 'shared'] },
  {
    name: 'channels',
    path: 'src/channels',
    may: ['channel-contracts', 'voice', 'providers', 'audio', 'shared'],
  },
  {
    name: 'engine',
    path: 'src/engine',
    may: ['channels', 'channel-contracts', 'providers', 'events', 'store', 'workflow', 'config', 'shared'],
  },
  {
    name: 'modules',
    path: 'src/modules',
    may: [
      'engine',
      'channels',
      'channel-contracts',
      'providers',
      'events',
      'store',
      'workflow',
      'config',
      'shared',
    ],
  },
  {
    name: 'calls',
    path: 'src/telephony/calls',
    may: [
      'modules',
      'engine',
      'channels',
      'channel-contracts',
      'voice',
      'providers',
      'events',
      'workflow',
      'sip',
      'media',
      'audio',
      'config',
      'shared',
    ],
  },
  {
    name: 'wiring',
    path: 'src/wiring',
    may: [
      'calls',
      'webrtc',
      'modules',
      'engine',
      'channels',
      'channel-contracts',
      'voice',
      'providers',
      'events',
      'store',
      'workflow',
      'sip',
      'media',
      'audio',
      'config',
      'shared',
    ],
  },
  {
    name: 'api',
    path: 'src/api',
    may: [
      'wiring',
      'modules',
      'engine',
      'providers',
      'events',
      'store',
      'workflow',
      'web-serving',
      'ops',
      'config',
      'shared',
    ],
  },
  // The entry points run everything: `serve` and the commands.
  { name: 'main', path: 'src/main.ts', may: '*' },
  { name: 'cli', path: 'src/cli', may: '*' },
  // The typed client's generator builds the app in memory to read its OpenAPI document.
  { name: 'client', path: 'src/client', may: '*' },
];

const paths = (room) => [room.path].flat();
const within = (inner, outer) => inner !== outer && inner.startsWith(`${outer}/`);

/**
 * Zones for import-x/no-restricted-paths over production files: for each room, every room it may
 * not import, minus the parts of that room it may (the channel contracts inside src/channels).
 */
export function layerZones() {
  const zones = [];
  for (const room of ROOMS) {
    if (room.may === '*') continue;
    const allowed = ROOMS.filter((r) => r === room || room.may.includes(r.name));
    const forbidden = ROOMS.filter((r) => !allowed.includes(r)).flatMap(paths);
    for (const from of forbidden) {
      // A part of a forbidden room is forbidden with it, once; a room never forbids its own files
      // (the contracts' and the voice pipeline's rooms lie inside the channels' room).
      if (forbidden.some((outer) => within(from, outer))) continue;
      const except = allowed
        .flatMap(paths)
        .filter((p) => within(p, from))
        .map((p) => `./${path.relative(from, p)}`);
      zones.push({
        target: paths(room),
        from,
        ...(except.length ? { except } : {}),
        message: `${room.name} may import only ${room.may.join(', ') || 'nothing but itself'} (ARCHITECTURE.md, "Layers").`,
      });
    }
  }
  return zones;
}

/** The folders whose tests may have fixtures of their own in `testing/`. */
function testRooms() {
  const tests = fs
    .readdirSync(path.join(root, 'test'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !['support', 'fixtures'].includes(e.name))
    .map((e) => `test/${e.name}`);
  return [...ROOMS.flatMap(paths).filter((p) => !p.endsWith('.ts')), ...tests];
}

const anyTesting = ['src/**/testing/**', 'test/*/testing/**'];

/** Tests and `testing/` modules of a room: its own `testing/` and test/support, no other room's. */
export function testingZones() {
  return testRooms().map((room) => ({
    target: room,
    from: anyTesting,
    except: [path.join(root, room, '**')],
    message: `a fixture used by several folders belongs in test/support (ARCHITECTURE.md, "Testing").`,
  }));
}

/** Production code (src/ outside tests, and bench/): no `testing/` module, nothing from test/. */
export const productionTestingZones = [
  { target: ['src', 'bench'], from: anyTesting, message: 'production code imports no testing/ module.' },
  { target: ['src', 'bench'], from: 'test', message: 'production code imports nothing from test/.' },
];

/** test/support builds on production code and itself only. */
export const supportZones = [
  {
    target: 'test/support',
    from: 'src/**/testing/**',
    message: 'shared support may not use one folder\'s fixtures (ARCHITECTURE.md, "Testing").',
  },
  {
    target: 'test/support',
    from: 'test',
    except: ['./support', './fixtures'],
    message: 'shared support may not use a test folder or its fixtures (ARCHITECTURE.md, "Testing").',
  },
];
