// The soak (npm run soak) in miniature: a few seconds of API requests, web sessions, sipp calls and
// webhook deliveries against the real service entry, and its audit finds nothing lost: every call
// and session final after the graceful shutdown, every event delivered once per attempt. The heap
// figures of so short a run mean nothing, so they are only checked to be there.
import { describe, expect, it } from 'vitest';
import { formatReport, heapEnds, runSoak, type StartService } from '../../bench/soak-run.js';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { haveSipp } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

/** The service in this process (the command forks it to measure its heap alone). */
const inProcess: StartService = async (env) => {
  let banner = '';
  const out = { write: (c: string) => ((banner += c), true) } as unknown as NodeJS.WritableStream;
  const service = await startService(loadConfig(env), 'all', out);
  return {
    banner,
    heapAfterGc: async () => process.memoryUsage().heapUsed,
    stop: () => service.close(),
  };
};

describe('soak', () => {
  it('measures heap growth after the first fifth of warm-up, medians of three at each end', () => {
    const mib = (n: number) => n * 2 ** 20;
    // Warm-up climbs to 96 MiB, then the steady part settles from 95 to 85.
    const heap = [65, 74, 83, 92, 96, 95, 94, 93, 92, 91, 90, 89, 88, 87, 86, 85].map((m, i) => ({
      atSeconds: 60 * (i + 1),
      bytes: mib(m),
    }));
    expect(heapEnds(heap)).toEqual({ first: mib(95), last: mib(86) });
    expect(heapEnds(heap.slice(0, 2))).toEqual({ first: mib(65), last: mib(74) });
  });

  peerTest(
    'API, web sessions, calls and webhooks together lose nothing',
    async () => {
      const report = await runSoak(
        {
          seconds: 8,
          sampleSeconds: 4,
          callsPerSecond: 1,
          apiPerSecond: 20,
          sessionsPerSecond: 1,
          progress: () => undefined,
        },
        inProcess,
      );
      const text = formatReport(report);
      expect(report.lost, text).toBe(0);
      expect(report.calls.succeeded, text).toBe(report.calls.offered);
      expect(report.callOutcomes, text).toEqual({ 'completed/workflow_hangup': report.calls.offered });
      expect(report.sessions.completed, text).toBe(report.sessions.minted);
      expect(report.sessions.minted, text).toBeGreaterThan(0);
      // How many requests fit in 8 s depends on the machine's load (no speed bound in a test):
      // some were made, and every one was answered as documented.
      expect(report.api.requests, text).toBeGreaterThan(0);
      expect(report.api.unexpected, text).toBe(0);
      // call.started, call.ended, workflow.completed and the phone session's session.ended per call;
      // session.ended and workflow.completed per web session: all of them reached the receiver.
      expect(report.webhooks.events, text).toBe(4 * report.calls.offered + 2 * report.sessions.minted);
      expect(report.webhooks.received, text).toBe(report.webhooks.events);
      expect(report.heap.length).toBeGreaterThanOrEqual(2);
    },
    180_000,
  );
});
