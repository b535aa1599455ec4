// Hard limits on what the parser accepts, so one hostile peer cannot make us allocate without bound.

export interface SipLimits {
  /** Whole message, start line to end of body. UDP cannot carry more than 64 KiB anyway. */
  readonly maxMessageBytes: number;
  /** Header fields (logical lines after unfolding), not counting comma-separated elements. */
  readonly maxHeaders: number;
  /** One header field after unfolding, or the start line. */
  readonly maxLineLength: number;
  /** Elements of one list header such as Via or Contact, summed over its lines. */
  readonly maxListElements: number;
}

export const DEFAULT_LIMITS: SipLimits = {
  maxMessageBytes: 64 * 1024,
  maxHeaders: 256,
  maxLineLength: 8 * 1024,
  maxListElements: 256,
};

export function withLimits(overrides?: Partial<SipLimits>): SipLimits {
  return overrides ? { ...DEFAULT_LIMITS, ...overrides } : DEFAULT_LIMITS;
}
