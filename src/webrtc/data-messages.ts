// Messages a browser may send on any data channel of its peer connection: keypad digits, the same
// frame the realtime socket takes (`{"type": "dtmf", "digits": "12#"}`). Anything else is
// answered on that channel with an `error` message and changes nothing.

/** Keys the realtime protocol takes: 1 to 32 of 0-9 * # A-D. */
const DTMF = /^[0-9*#A-D]{1,32}$/;
/** A keypad message is tiny; anything much longer is not one. */
const MAX_MESSAGE_CHARS = 1024;

export type DataMessage = { ok: true; digits: string } | { ok: false; code: string; message: string };

export function readDataMessage(raw: string | Buffer | ArrayBuffer): DataMessage {
  const text =
    typeof raw === 'string'
      ? raw
      : Buffer.from(raw instanceof ArrayBuffer ? new Uint8Array(raw) : raw).toString('utf8');
  if (text.length > MAX_MESSAGE_CHARS) {
    return {
      ok: false,
      code: 'frame_too_large',
      message: `Messages must be at most ${MAX_MESSAGE_CHARS} characters.`,
    };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, code: 'invalid_json', message: 'Messages must be JSON objects.' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, code: 'invalid_json', message: 'Messages must be JSON objects.' };
  }
  const m = data as Record<string, unknown>;
  if (m.type !== 'dtmf') {
    return {
      ok: false,
      code: 'unknown_type',
      message: `Unknown message type ${JSON.stringify(m.type)}: data channels carry only {"type":"dtmf"}.`,
    };
  }
  if (typeof m.digits !== 'string' || !DTMF.test(m.digits)) {
    return { ok: false, code: 'invalid_message', message: 'digits must be 1 to 32 of 0-9 * # A-D.' };
  }
  return { ok: true, digits: m.digits };
}
