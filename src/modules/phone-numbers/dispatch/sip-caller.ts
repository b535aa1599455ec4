// What dispatch calls the caller of an inbound INVITE: the E.164 number from the From URI, or
// `anonymous` when the number is withheld — an anonymous From (RFC 3261 §8.1.1.3: user
// "anonymous", host "anonymous.invalid"), no user part at all, or a Privacy header asking to
// hide the identity (`id`, RFC 3325; `user`/`header`, RFC 3323).
import { ANONYMOUS } from './rule.js';

export interface SipCallerInfo {
  /** User part of the From URI (sip:+14155550100@…, tel:+1…), undecoded; null if none. */
  fromUser: string | null;
  /** Host part of the From URI, if any. */
  fromHost?: string | null;
  /** The Privacy header's value, e.g. "id" or "header;user". */
  privacy?: string | null;
}

const HIDING = new Set(['id', 'user', 'header']);

export function dispatchCaller(info: SipCallerInfo): string {
  const privacy = (info.privacy ?? '')
    .split(/[;,\s]+/)
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
  if (privacy.some((p) => HIDING.has(p))) return ANONYMOUS;
  if ((info.fromHost ?? '').toLowerCase() === 'anonymous.invalid') return ANONYMOUS;
  const user = decodeURIComponentSafe(info.fromUser ?? '')
    .split(';')[0]!
    .trim();
  if (user === '' || user.toLowerCase() === ANONYMOUS) return ANONYMOUS;
  // Carriers format numbers for people now and then: drop visual separators (RFC 3966).
  const compact = user.replace(/[\s().-]/g, '');
  if (/^\+?\d{2,15}$/.test(compact)) return compact.startsWith('+') ? compact : `+${compact}`;
  return user;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
