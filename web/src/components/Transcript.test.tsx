import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Message } from '../api/types';
import { pressedKeys, Transcript } from './Transcript';

const message = (sequence: number, role: Message['role'], content: string): Message =>
  ({
    sequence,
    role,
    content,
    spoken_at: '2026-03-01T10:00:00Z',
    latency_ms: null,
  }) as Message;

describe('Transcript', () => {
  it("shows the caller's keypresses as keys, in order between the prompt and the reply", () => {
    render(
      <Transcript
        messages={[
          message(3, 'assistant', 'You chose 2.'),
          message(1, 'assistant', 'Press 1 for sales, 2 for support'),
          message(2, 'user', 'Pressed 2#'),
        ]}
      />,
    );
    const turns = within(screen.getByRole('list', { name: 'Transcript' })).getAllByRole('listitem');
    expect(turns.map((t) => t.className)).toEqual([
      'turn turn-assistant',
      'turn turn-user',
      'turn turn-assistant',
    ]);
    expect(within(turns[1]!).getByText('Caller')).toBeTruthy();
    // Read out as recorded; seen as two keypad keys.
    expect(within(turns[1]!).getByText('Pressed 2#').className).toBe('sr-only');
    expect([...turns[1]!.querySelectorAll('kbd')].map((k) => k.textContent)).toEqual(['2', '#']);
    expect(turns[2]!.textContent).toContain('You chose 2.');
  });

  it('leaves words as words, the caller saying "pressed" too', () => {
    expect(pressedKeys(message(1, 'user', 'Pressed 12*'))).toEqual(['1', '2', '*']);
    expect(pressedKeys(message(1, 'user', 'Pressed the wrong key'))).toBeNull();
    expect(pressedKeys(message(1, 'assistant', 'Pressed 1'))).toBeNull();
    render(<Transcript messages={[message(1, 'user', 'Pressed the wrong key')]} />);
    expect(screen.getByText('Pressed the wrong key').tagName).toBe('DIV');
    expect(document.querySelectorAll('kbd')).toHaveLength(0);
  });
});
