import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json, page } from '../../test/fetch';
import { TrunksPage } from './TrunksPage';

function renderPage() {
  storeKey('pk_live_componenttestkey');
  return render(
    <MemoryRouter initialEntries={['/telephony/trunks']}>
      <Routes>
        <Route path="/telephony/trunks" element={<TrunksPage />} />
        <Route path="/telephony/trunks/:id" element={<p>trunk page</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

describe('TrunksPage', () => {
  it('sends the trunk through the typed client with the key, and shows a 422 beside the field it names', async () => {
    const user = userEvent.setup({ delay: null });
    let answer = json(422, {
      message: 'termination_uri: must be a sip: or sips: URI',
      errors: { termination_uri: ['must be a sip: or sips: URI'] },
    });
    const { sent } = fakeApi([
      { method: 'GET', path: '/api/v1/sip-trunks', reply: () => json(200, page([])) },
      { method: 'POST', path: '/api/v1/sip-trunks', reply: () => answer },
    ]);
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'New trunk' }));
    const form = screen.getByRole('form', { name: 'New trunk' });
    await user.type(within(form).getByLabelText('Name'), 'Carrier');
    await user.type(within(form).getByLabelText('Termination URI'), 'carrier.example.com');
    await user.type(within(form).getByLabelText('Username'), 'sb');
    await user.type(within(form).getByLabelText('Password'), 'secret-pass');
    await user.type(
      within(form).getByLabelText('Allowed source IPs (optional)'),
      '203.0.113.0/24, 198.51.100.7/32',
    );
    await user.click(within(form).getByRole('button', { name: 'Create trunk' }));

    const uri = within(form).getByLabelText('Termination URI');
    expect(await within(form).findByText('must be a sip: or sips: URI')).toBeTruthy();
    expect(uri.getAttribute('aria-invalid')).toBe('true');
    expect((uri as HTMLInputElement).value).toBe('carrier.example.com');
    const post = sent.find((s) => s.method === 'POST')!;
    expect(post.headers.get('authorization')).toBe('Bearer pk_live_componenttestkey');
    expect(post.body).toEqual({
      name: 'Carrier',
      provider: 'generic',
      transport: 'udp',
      termination_uri: 'carrier.example.com',
      auth_username: 'sb',
      auth_password: 'secret-pass',
      allowed_ips: ['203.0.113.0/24', '198.51.100.7/32'],
      register: false,
      registrar_uri: null,
      health_check: false,
    });

    answer = json(201, { data: { id: '0190a1b2-0000-7000-8000-000000000001' } });
    await user.clear(uri);
    await user.type(uri, 'sip:carrier.example.com');
    await user.click(within(form).getByRole('button', { name: 'Create trunk' }));
    expect(await screen.findByText('trunk page')).toBeTruthy();
  });

  it('shows a lost connection with a Retry that loads the list again', async () => {
    const user = userEvent.setup({ delay: null });
    let down = true;
    fakeApi([
      {
        method: 'GET',
        path: '/api/v1/sip-trunks',
        reply: () => {
          if (down) throw new TypeError('Failed to fetch');
          return json(
            200,
            page([
              {
                id: 't1',
                name: 'Carrier',
                provider: 'generic',
                transport: 'udp',
                termination_uri: 'sip:x',
                auth_username: 'u',
                allowed_ips: [],
                origination_uri: 'sip:ws.sip.localhost;transport=udp',
                status: 'active',
                created_at: '',
                updated_at: '',
              },
            ]),
          );
        },
      },
    ]);
    renderPage();
    expect((await screen.findByRole('alert')).textContent).toContain('The server could not be reached');
    down = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('link', { name: 'Carrier' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('asks the carrier for registration and health checks, and lists what the SIP node reports', async () => {
    const user = userEvent.setup({ delay: null });
    const trunk = (id: string, extra: object) => ({
      id,
      name: `Trunk ${id}`,
      provider: 'generic',
      transport: 'udp',
      termination_uri: 'sip:x',
      auth_username: 'u',
      allowed_ips: [],
      origination_uri: 'sip:ws.sip.localhost;transport=udp',
      status: 'active',
      register: false,
      registrar_uri: null,
      health_check: false,
      registration_status: null,
      registration_error: null,
      registered_until: null,
      health: null,
      created_at: '',
      updated_at: '',
      ...extra,
    });
    const { sent } = fakeApi([
      {
        method: 'GET',
        path: '/api/v1/sip-trunks',
        reply: () =>
          json(
            200,
            page([
              trunk('a', {
                register: true,
                registration_status: 'registered',
                health_check: true,
                health: 'up',
              }),
              trunk('b', {
                register: true,
                registration_status: 'failed',
                registration_error: '403 Forbidden',
              }),
              trunk('c', {}),
            ]),
          ),
      },
      {
        method: 'POST',
        path: '/api/v1/sip-trunks',
        reply: () =>
          json(422, {
            message: 'registrar_uri: not a SIP URI',
            errors: { registrar_uri: ['not a SIP URI'] },
          }),
      },
    ]);
    renderPage();
    const rowOf = async (name: string) => (await screen.findByRole('link', { name })).closest('tr')!;
    expect((await rowOf('Trunk a')).textContent).toContain('Registered');
    expect((await rowOf('Trunk a')).textContent).toContain('Carrier up');
    expect((await rowOf('Trunk b')).textContent).toContain('Failed');
    expect((await rowOf('Trunk c')).textContent).toContain('—');

    await user.click(screen.getByRole('button', { name: 'New trunk' }));
    const form = screen.getByRole('form', { name: 'New trunk' });
    expect(within(form).queryByLabelText('Registrar URI (optional)')).toBeNull();
    await user.click(within(form).getByLabelText('Register with the carrier'));
    await user.type(within(form).getByLabelText('Registrar URI (optional)'), 'registrar.example');
    await user.click(within(form).getByLabelText('Check that the carrier is up'));
    await user.click(within(form).getByRole('button', { name: 'Create trunk' }));
    const registrar = within(form).getByLabelText('Registrar URI (optional)');
    expect(await within(form).findByText('not a SIP URI')).toBeTruthy();
    expect(registrar.getAttribute('aria-invalid')).toBe('true');
    expect(sent.find((s) => s.method === 'POST')!.body).toMatchObject({
      register: true,
      registrar_uri: 'registrar.example',
      health_check: true,
    });
  });
});
