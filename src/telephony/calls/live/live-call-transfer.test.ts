// Transfers and dials from a LiveCall, on the fakes of testing/live-call-setup.ts: no transferer,
// blind transfers (the carrier's BYE before its final NOTIFY included), a bridge that keeps the
// call past the session and the caller leaving, and the dial node's dialler and caller ID.
import { describe, expect, it } from 'vitest';
import { blind, flush, setup } from '../testing/live-call-setup.js';
import type { DialLegOptions, SecondLegDialler, Transferer } from '../transfer/transfer-context.js';

describe('LiveCall: transfers and dials', () => {
  it('without a transferer a transfer fails transfer_unavailable and the call goes on', async () => {
    const t = setup();
    await t.run();
    expect(await t.control().transfer('tel:+14155550100', blind)).toEqual({
      status: 'failed',
      reason: 'transfer_unavailable',
    });
    expect(t.ends).toEqual([]);
  });

  it('a blind transfer that succeeds ends the call as `transfer` at once; a failed one changes nothing', async () => {
    let outcome: Awaited<ReturnType<Transferer>> = { status: 'failed', reason: 'refer_rejected_403' };
    const seen: string[] = [];
    const t = setup({
      transferer: async (ctx, destination) => {
        seen.push(`${ctx.call.id} ${destination}`);
        return outcome;
      },
    });
    await t.run();
    expect(await t.control().transfer('tel:+1', blind)).toEqual({
      status: 'failed',
      reason: 'refer_rejected_403',
    });
    expect(t.ends).toEqual([]);
    outcome = { status: 'success' };
    expect(await t.control().transfer('tel:+1', blind)).toEqual({ status: 'success' });
    await flush();
    expect(t.ends).toEqual(['transfer']);
    expect(seen).toEqual(['call-1 tel:+1', 'call-1 tel:+1']);
  });

  it("the carrier's BYE before its final NOTIFY ends the call `transfer` when the REFER succeeds, `remote` when it fails", async () => {
    for (const [outcome, ending] of [
      [{ status: 'success' as const }, 'transfer'],
      [{ status: 'failed' as const, reason: 'notify_timeout' }, 'remote'],
    ] as const) {
      let finish!: (o: Awaited<ReturnType<Transferer>>) => void;
      const t = setup({ transferer: () => new Promise((resolve) => (finish = resolve)) });
      await t.run();
      const transfer = t.control().transfer('tel:+1', blind);
      await flush();
      await t.call.remoteEnded(); // the carrier hangs up while the REFER is at work
      expect(t.ends).toEqual([]);
      finish(outcome);
      await transfer;
      await flush();
      expect(t.ends).toEqual([ending]);
    }
  });

  it('a bridged transfer keeps the call until the bridge ends, even past the session and the caller leaving', async () => {
    let endBridge!: () => void;
    let gone: AbortSignal | undefined;
    const t = setup({
      transferer: async (ctx) => {
        gone = ctx.callerGone;
        ctx.suspendMedia();
        return { status: 'success', bridged: new Promise<void>((r) => (endBridge = r)) };
      },
    });
    await t.run();
    const digits: string[] = [];
    t.media.onDigit((d) => digits.push(d));
    expect(await t.control().transfer('sip:human@example.com', { ...blind, mode: 'warm' })).toEqual({
      status: 'success',
    });
    t.session.finish(); // the execution ends `transferred`
    await flush();
    expect(t.ends).toEqual([]);
    t.media.infoDigit('1'); // the bridge owns the caller now
    expect(digits).toEqual([]);
    await t.call.remoteEnded(); // the caller hangs up: the bridge is told, the call waits for it
    expect(gone?.aborted).toBe(true);
    expect(t.ends).toEqual([]);
    endBridge();
    await t.call.closed;
    expect(t.ends).toEqual(['transfer']);
  });

  it('dial: the dialler dials without an announcement, `from` picks the registered number and its trunk', async () => {
    const seen: { from: string; numberId: string | null; options: DialLegOptions }[] = [];
    let outcome: Awaited<ReturnType<SecondLegDialler>> = { status: 'failed', reason: 'busy' };
    const t = setup({
      dialler: async (ctx, _destination, options) => {
        seen.push({ from: ctx.call.from_number, numberId: ctx.call.phone_number_id, options });
        return outcome;
      },
      // The dial node no longer borrows the transferer.
      transferer: async () => {
        throw new Error('the transferer dialled');
      },
    });
    await t.run();
    const signal = new AbortController().signal;
    expect(await t.control().dial('tel:+15551230000', { signal })).toEqual({
      status: 'busy',
      reason: 'busy',
    });
    expect(await t.control().dial('tel:+15551230000', { signal, from: '+14155550999' })).toEqual({
      status: 'busy',
      reason: 'busy',
    });
    expect(await t.control().dial('tel:+15551230000', { signal, from: '+19999999999' })).toEqual({
      status: 'failed',
      reason: 'from_not_registered',
    });
    // Only the node's signal (no announcement, no mode: the dialler has one job).
    expect(seen).toEqual([
      { from: undefined, numberId: undefined, options: { signal } },
      { from: '+14155550999', numberId: 'num-2', options: { signal } },
    ]);
    let endBridge!: () => void;
    outcome = { status: 'success', bridged: new Promise<void>((r) => (endBridge = r)) };
    const dialled = t.control().dial('tel:+15551230000', { signal });
    await flush();
    endBridge();
    expect(await dialled).toEqual({ status: 'answered' });
    expect(t.ends).toEqual([]);
  });
});
