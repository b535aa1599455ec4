import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../../shared/secret-box.js';
import { deriveServerKeys } from '../../../shared/server-key.js';
import type { TrunkRecord as SipTrunkTable } from '../../../modules/calls/call-records.service.js';
import { TRUNK_WATCH_OFF } from '../../../modules/sip-trunks/sip-trunks.service.js';
import { onTrunk, ourNumber, referToUri, telNumber, warmTarget } from './transfer-route.js';

const box = new SecretBox(deriveServerKeys('master').secretBox);
const trunk = (termination_uri: string, transport = 'udp'): SipTrunkTable => ({
  id: 't',
  workspace_id: 'w',
  name: 'carrier',
  provider: 'other',
  termination_uri,
  auth_username: 'acct',
  auth_password_enc: box.seal('s3cret'),
  transport,
  allowed_ips: '[]',
  status: 'active',
  created_at: '',
  updated_at: '',
  ...TRUNK_WATCH_OFF,
});

describe('transfer routes', () => {
  it('tel: becomes a user=phone SIP URI at the trunk host; sip: goes as given', () => {
    expect(referToUri('tel:+14155550123', trunk('sip.carrier.example'))).toBe(
      'sip:+14155550123@sip.carrier.example;user=phone',
    );
    expect(referToUri('tel:+14155550123', trunk('sip:carrier.example:5080', 'tcp'))).toBe(
      'sip:+14155550123@carrier.example:5080;transport=tcp;user=phone',
    );
    expect(referToUri('tel:+14155550123', undefined)).toBe('tel:+14155550123');
    expect(referToUri('sip:agent@pbx.example.com', trunk('x.example'))).toBe('sip:agent@pbx.example.com');
    expect(referToUri('mailto:x@y', undefined)).toBeNull();
    expect(telNumber('tel:+4930123456')).toBe('+4930123456');
    expect(telNumber('tel:030123456')).toBeNull();
  });

  it("a carrier_a trunk's REFER goes to +E164 at its edge host; onTrunk knows the trunk's host", () => {
    expect(referToUri('tel:+15550123', trunk('sip:acme.pstn.ashburn.twilio.com'))).toBe(
      'sip:+15550123@acme.pstn.ashburn.twilio.com;user=phone',
    );
    expect(onTrunk('ACME.pstn.ashburn.twilio.com', trunk('sip:acme.pstn.ashburn.twilio.com'))).toBe(true);
    expect(onTrunk('pbx.example.com', trunk('sip:acme.pstn.ashburn.twilio.com'))).toBe(false);
  });

  it('our number is the dialled one inbound and the caller ID outbound', () => {
    expect(ourNumber({ direction: 'inbound', from_number: '+1', to_number: '+2' })).toBe('+2');
    expect(ourNumber({ direction: 'outbound', from_number: '+1', to_number: '+2' })).toBe('+1');
  });

  it('warm targets: tel: through the trunk with its credentials', () => {
    const t = warmTarget('tel:+14155550123', trunk('sip:carrier.example:5061', 'tls'), { secretBox: box });
    expect(t).toEqual({
      target: {
        uri: 'sip:+14155550123@carrier.example:5061;transport=tls',
        host: 'carrier.example',
        port: 5061,
        transport: 'tls',
      },
      auth: { username: 'acct', password: 's3cret' },
    });
    expect(warmTarget('tel:+14155550123', undefined, { secretBox: box })).toBeNull();
  });

  it('warm targets: sip: at its own host, trunk credentials only for the trunk host', () => {
    const elsewhere = warmTarget('sip:agent@pbx.example.com;transport=tcp', trunk('carrier.example'), {
      secretBox: box,
    });
    expect(elsewhere).toEqual({
      target: {
        uri: 'sip:agent@pbx.example.com;transport=tcp',
        host: 'pbx.example.com',
        port: null,
        transport: 'tcp',
      },
      auth: { username: '', password: '' },
    });
    const same = warmTarget('sip:+14155550123@Carrier.example:5080', trunk('carrier.example'), {
      secretBox: box,
    });
    expect(same?.auth).toEqual({ username: 'acct', password: 's3cret' });
    expect(same?.target).toMatchObject({ host: 'Carrier.example', port: 5080, transport: 'udp' });
    expect(warmTarget('sip:pbx.example.com', undefined, { secretBox: box })).toBeNull();
  });
});
