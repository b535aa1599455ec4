import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { InvitePacer } from './invite-pacer.js';

describe('InvitePacer', () => {
  it('lets one INVITE per interval leave for a host, hosts apart, case-blind', async () => {
    const clock = new FakeClock(0);
    const pacer = new InvitePacer(clock);
    const left: string[] = [];
    const go = (host: string, name: string) => void pacer.slot(host, 30).then(() => left.push(name));
    go('a.example', 'a1');
    go('A.example', 'a2');
    go('a.example', 'a3');
    go('b.example', 'b1');
    await Promise.resolve();
    expect(left).toEqual(['a1', 'b1']);
    clock.advance(33);
    await Promise.resolve();
    expect(left).toEqual(['a1', 'b1']);
    clock.advance(1);
    await Promise.resolve();
    expect(left).toEqual(['a1', 'b1', 'a2']);
    clock.advance(33);
    await Promise.resolve();
    expect(left).toEqual(['a1', 'b1', 'a2', 'a3']);
    // After a quiet spell the next one leaves at once again (no credit is saved up).
    clock.advance(5_000);
    go('a.example', 'a4');
    go('a.example', 'a5');
    await Promise.resolve();
    expect(left).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
  });
});
