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

describe('Transcript: a prompt the caller cut short', () => {
  const cut = (heard: number | null): Message =>
    ({
      ...message(1, 'assistant', 'We are open from nine until five, Monday to Friday.'),
      interrupted: true,
      heard_chars: heard,
    }) as Message;

  it('greys out what was not heard, and reads it out as not heard', () => {
    render(<Transcript messages={[cut(16)]} />);
    const turn = within(screen.getByRole('list', { name: 'Transcript' })).getByRole('listitem');
    const unheard = turn.querySelector('.unheard')!;
    expect(unheard.textContent).toBe(' Not heard:  nine until five, Monday to Friday.');
    expect(unheard.querySelector('.sr-only')!.textContent).toBe(' Not heard: ');
    // The heard words stay as they were said, then the mark of the interruption.
    expect(turn.textContent).toContain('We are open from Not heard:');
    expect(turn.querySelector('.cut')!.textContent).toBe(' (interrupted)');
  });

  it('marks it interrupted, all of it as said, when nobody could tell what was heard', () => {
    render(<Transcript messages={[cut(null)]} />);
    const turn = within(screen.getByRole('list', { name: 'Transcript' })).getByRole('listitem');
    expect(turn.querySelector('.unheard')).toBeNull();
    expect(turn.textContent).toContain('We are open from nine until five, Monday to Friday. (interrupted)');
  });

  it('shows an uninterrupted message whole, with no mark', () => {
    render(<Transcript messages={[{ ...cut(16), interrupted: false } as Message]} />);
    expect(document.querySelector('.unheard')).toBeNull();
    expect(document.querySelector('.cut')).toBeNull();
  });
});
