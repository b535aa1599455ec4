import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json } from '../../test/fetch';
import { RecordingPlayer } from './RecordingPlayer';

// jsdom has no object URLs; the player's only use of them is handing the fetched blob to <audio>.
const created: Blob[] = [];
vi.stubGlobal(
  'URL',
  Object.assign(URL, {
    createObjectURL: (b: Blob) => (created.push(b), `blob:recording-${created.length}`),
    revokeObjectURL: () => undefined,
  }),
);
afterEach(() => void (created.length = 0));

describe('RecordingPlayer', () => {
  it('fetches the recording with the signed-in key and plays it from a blob URL', async () => {
    storeKey('pk_live_componenttestkey');
    const wav = new Uint8Array([0x52, 0x49, 0x46, 0x46]);
    const { sent } = fakeApi([
      {
        method: 'GET',
        path: '/api/v1/calls/c1/recording',
        reply: () => new Response(wav, { status: 200, headers: { 'Content-Type': 'audio/wav' } }),
      },
    ]);
    render(<RecordingPlayer callId="c1" />);
    const audio = await screen.findByLabelText('Call recording');
    expect(audio.getAttribute('src')).toBe('blob:recording-1');
    expect(new Uint8Array(await created[0]!.arrayBuffer())).toEqual(wav);
    expect(sent[0]!.headers.get('authorization')).toBe('Bearer pk_live_componenttestkey');
    expect(screen.getByRole('link', { name: 'Download (WAV)' }).getAttribute('download')).toBe('call-c1.wav');
  });

  it('shows a refused read with a retry, and plays once the retry succeeds', async () => {
    const user = userEvent.setup({ delay: null });
    storeKey('pk_live_componenttestkey');
    let answers = 0;
    fakeApi([
      {
        method: 'GET',
        path: '/api/v1/calls/c1/recording',
        reply: () =>
          ++answers === 1
            ? json(503, { message: 'Service unavailable' })
            : new Response(new Uint8Array([1]), { status: 200, headers: { 'Content-Type': 'audio/wav' } }),
      },
    ]);
    render(<RecordingPlayer callId="c1" />);
    expect((await screen.findByRole('alert')).textContent).toBeTruthy();
    await user.click(screen.getByRole('button', { name: /try again|retry/i }));
    expect(await screen.findByLabelText('Call recording')).toBeTruthy();
  });
});
