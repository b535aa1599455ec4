// What dispatch calls the caller of an inbound INVITE: the E.164 number from the From URI, or
// `anonymous` when the number is withheld — an anonymous From (RFC 3261 §8.1.1.3: user
// "anonymous", host "anonymous.invalid"), no user part at all, or a Privacy header asking to
// hide the identity (`id`, RFC 3325; `user`/`header`, RFC 3323). When the From names no number
// (anonymous, or a name) but the carrier asserts one in P-Asserted-Identity (or Remote-Party-ID),
// and no Privacy header hides it, that number is the caller.
import { ANONYMOUS } from './rule.js';

export interface SipCallerInfo {
  /** User part of the From URI (sip:+14155550100@…, tel:+1…), undecoded; null if none. */
  fromUser: string | null;
  /** Host part of the From URI, if any. */
  fromHost?: string | null;
  /** The Privacy header's value, e.g. "id" or "header;user". */
  privacy?: string | null;
  /** User part of P-Asserted-Identity / Remote-Party-ID: the number when the From has none. */
  assertedUser?: string | null;
}

const HIDING = new Set(['id', 'user', 'header']);

export function dispatchCaller(info: SipCallerInfo): string {
  const privacy = (info.privacy ?? '')
    .split(/[;,\s]+/)
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
  if (privacy.some((p) => HIDING.has(p))) return ANONYMOUS;
  const fromAnonymous = (info.fromHost ?? '').toLowerCase() === 'anonymous.invalid';
  const from = fromAnonymous ? null : numberOf(info.fromUser);
  if (from?.number) return from.user;
  // The From names no number (anonymous or a name), yet the carrier asserts one and no Privacy
  // header asks to hide it (RFC 3325: the network vouches for P-Asserted-Identity).
  const asserted = numberOf(info.assertedUser ?? null);
  if (asserted?.number) return asserted.user;
  if (fromAnonymous || from === null) return ANONYMOUS;
  return from.user;
}

/** A user part read as the caller: an E.164-ish number (normalised), another name, or null. */
function numberOf(raw: string | null): { user: string; number: boolean } | null {
  const user = decodeURIComponentSafe(raw ?? '')
    .split(';')[0]!
    .trim();
  if (user === '' || user.toLowerCase() === ANONYMOUS) return null;
  // Carriers format numbers for people now and then: drop visual separators (RFC 3966).
  const compact = user.replace(/[\s().-]/g, '');
  if (/^\+?\d{2,15}$/.test(compact))
    return { user: compact.startsWith('+') ? compact : `+${compact}`, number: true };
  return { user, number: false };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
