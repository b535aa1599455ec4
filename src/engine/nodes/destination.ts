// Transfer and dial destinations after template rendering: `tel:<E164>` or `sip:user@host`
// (docs/workflow-nodes.md). A bare E.164 number is accepted as `tel:` for convenience.
const TEL = /^tel:\+[1-9]\d{1,14}$/;
const SIP = /^sips?:[^@\s:;]+@[A-Za-z0-9.-]+(:\d{1,5})?(;[^\s]*)?$/;

export function normalizeDestination(raw: string): string | null {
  const d = raw.trim();
  if (/^\+[1-9]\d{1,14}$/.test(d)) return `tel:${d}`;
  return TEL.test(d) || SIP.test(d) ? d : null;
}
