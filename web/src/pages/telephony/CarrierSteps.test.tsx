import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SipTrunk } from '../../api/types';
import { CarrierSteps } from './CarrierSteps';

const trunk = (over: Partial<SipTrunk>): SipTrunk =>
  ({
    id: 't1',
    name: 'Twilio',
    provider: 'carrier_a',
    termination_uri: 'sip:acme.pstn.twilio.com',
    auth_username: 'switchboard',
    transport: 'tls',
    allowed_ips: [],
    origination_uri: 'sip:ws-0a1b2c3d4e.sip.localhost;transport=tls',
    status: 'active',
    ...over,
  }) as SipTrunk;

describe('CarrierSteps', () => {
  it("carrier_a: the spec's steps, call transfer at the carrier, and its ranges while allowed IPs are empty", () => {
    const { unmount } = render(<CarrierSteps trunk={trunk({})} />);
    const text = screen.getByRole('list').textContent ?? '';
    expect(text).toMatch(/priority 10, weight 10, enabled/);
    expect(text).toMatch(/termination SIP URI to sip:acme\.pstn\.twilio\.com/);
    expect(text).toMatch(/credential list with username switchboard/);
    expect(text).toMatch(/secure trunking \(TLS \+ SRTP\)/);
    expect(text).toMatch(/Call Transfer \(SIP REFER\)/);
    expect(screen.getByTestId('carrier-ranges').textContent).toContain('54.172.60.0/30, 54.244.51.0/30');
    unmount();
    render(<CarrierSteps trunk={trunk({ allowed_ips: ['54.172.60.0/30'], transport: 'udp' })} />);
    expect(screen.queryByTestId('carrier-ranges')).toBeNull();
    expect(screen.getByRole('list').textContent).not.toMatch(/secure trunking/);
  });
});
