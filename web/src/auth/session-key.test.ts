import { describe, expect, it } from 'vitest';
import { adoptKeyFromFragment, readKey } from './session-key';

describe('sign-in link', () => {
  it('takes the key from #key=, keeps it for the tab, and strips it from the address bar', () => {
    window.history.replaceState(null, '', '/calls?status=completed#key=pk_live_abcdefghijklmnop');
    expect(adoptKeyFromFragment()).toBe(true);
    expect(readKey()).toBe('pk_live_abcdefghijklmnop');
    expect(window.location.hash).toBe('');
    expect(window.location.pathname + window.location.search).toBe('/calls?status=completed');
  });

  it('ignores a malformed key but still strips it', () => {
    window.history.replaceState(null, '', '/#key=not-a-key');
    expect(adoptKeyFromFragment()).toBe(false);
    expect(readKey()).toBeNull();
    expect(window.location.hash).toBe('');
  });
});
