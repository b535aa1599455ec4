import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Badge, badgeText } from './Badge';

describe('Badge', () => {
  it('writes API values in sentence case, keeping version tags and the rest as they are', () => {
    expect(badgeText('no_answer')).toBe('No answer');
    expect(badgeText('live: v2')).toBe('Live: v2');
    expect(badgeText('carrier down')).toBe('Carrier down');
    expect(badgeText('v12')).toBe('v12');
    expect(badgeText('2 errors')).toBe('2 errors');
  });

  it('shows the words in the DOM and picks the tone from the value', () => {
    render(<Badge value="no_answer" />);
    const badge = screen.getByText('No answer');
    expect(badge.className).toBe('badge badge-warn');
    render(<Badge value="live: v2" tone="good" />);
    expect(screen.getByText('Live: v2').className).toBe('badge badge-good');
  });
});
