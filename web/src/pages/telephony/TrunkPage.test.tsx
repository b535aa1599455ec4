import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json } from '../../test/fetch';
import { TrunkPage } from './TrunkPage';

const trunk = {
  id: 't1',
  name: 'Carrier',
  provider: 'generic',
  transport: 'tls',
  termination_uri: 'sip:carrier.example.com',
  auth_username: 'sb',
  allowed_ips: [],
  register: false,
  registrar_uri: null,
  health_check: false,
  origination_uri: 'sip:ws.sip.localhost;transport=tls',
  status: 'active',
};

describe('TrunkPage', () => {
  it('heads the page with the trunk, and deletes it on the second press, back to the list', async () => {
    const user = userEvent.setup({ delay: null });
    storeKey('pk_live_componenttestkey');
    const { sent } = fakeApi([
      { method: 'GET', path: '/api/v1/sip-trunks/t1', reply: () => json(200, { data: trunk }) },
      { method: 'DELETE', path: '/api/v1/sip-trunks/t1', reply: () => json(204, null) },
    ]);
    render(
      <MemoryRouter initialEntries={['/telephony/trunks/t1']}>
        <Routes>
          <Route path="/telephony/trunks/:id" element={<TrunkPage />} />
          <Route path="/telephony/trunks" element={<p>trunk list</p>} />
        </Routes>
      </MemoryRouter>,
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Carrier' })).toBeTruthy();
    expect(screen.getByText('Generic SIP trunk over TLS')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Delete trunk' }));
    expect(sent.some((s) => s.method === 'DELETE')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Delete trunk' }));
    expect(await screen.findByText('trunk list')).toBeTruthy();
    expect(sent.filter((s) => s.method === 'DELETE').map((s) => s.path)).toEqual(['/api/v1/sip-trunks/t1']);
  });
});
