import { describe, expect, it } from 'vitest';
import { dispatchCaller } from './sip-caller.js';

describe('dispatchCaller', () => {
  it('reads the E.164 number from the From user part', () => {
    expect(dispatchCaller({ fromUser: '+14155550100', fromHost: 'carrier.example.com' })).toBe(
      '+14155550100',
    );
    expect(dispatchCaller({ fromUser: '14155550100' })).toBe('+14155550100');
    expect(dispatchCaller({ fromUser: '+1-415-555-0100' })).toBe('+14155550100');
    expect(dispatchCaller({ fromUser: '%2B14155550100' })).toBe('+14155550100');
    expect(dispatchCaller({ fromUser: '+14155550100;npdi', privacy: 'none' })).toBe('+14155550100');
  });

  it('calls withheld numbers anonymous', () => {
    expect(dispatchCaller({ fromUser: 'anonymous', fromHost: 'anonymous.invalid' })).toBe('anonymous');
    expect(dispatchCaller({ fromUser: 'Anonymous', fromHost: 'carrier.example.com' })).toBe('anonymous');
    expect(dispatchCaller({ fromUser: '+14155550100', fromHost: 'anonymous.invalid' })).toBe('anonymous');
    expect(dispatchCaller({ fromUser: null })).toBe('anonymous');
    expect(dispatchCaller({ fromUser: '' })).toBe('anonymous');
    expect(dispatchCaller({ fromUser: '+14155550100', privacy: 'id' })).toBe('anonymous');
    expect(dispatchCaller({ fromUser: '+14155550100', privacy: 'header;user' })).toBe('anonymous');
    expect(dispatchCaller({ fromUser: '+14155550100', privacy: 'ID' })).toBe('anonymous');
  });

  it('passes other users through, where they match no number prefix', () => {
    expect(dispatchCaller({ fromUser: 'alice' })).toBe('alice');
    expect(dispatchCaller({ fromUser: '1' })).toBe('1');
  });

  it('takes the asserted number when the From names none, unless Privacy hides it', () => {
    const asserted = '+4930123456';
    expect(dispatchCaller({ fromUser: 'anonymous', fromHost: '54.172.60.1', assertedUser: asserted })).toBe(
      asserted,
    );
    expect(dispatchCaller({ fromUser: 'alice', assertedUser: '4930123456' })).toBe(asserted);
    expect(dispatchCaller({ fromUser: null, assertedUser: asserted })).toBe(asserted);
    // The From's own number wins; a Privacy header hides both; an asserted name is no number.
    expect(dispatchCaller({ fromUser: '+14155550100', assertedUser: asserted })).toBe('+14155550100');
    expect(dispatchCaller({ fromUser: 'anonymous', assertedUser: asserted, privacy: 'id' })).toBe(
      'anonymous',
    );
    expect(dispatchCaller({ fromUser: 'anonymous', assertedUser: 'bob' })).toBe('anonymous');
    expect(dispatchCaller({ fromUser: 'alice', assertedUser: 'bob' })).toBe('alice');
  });
});
