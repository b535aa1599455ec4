// The calls benchmark's sipp scenarios (calls.bench.ts): the carrier calling our number, one that
// hangs up after 1 s (part 1, set-up rate), one held with g711a audio and an RFC 4733 digit
// (part 2, held calls; the soak's calls too) and one that takes a 503 as a refusal (part 3,
// overload), with __DOMAIN__ for the node's SIP domain. The scenarios differ in their flow; the
// messages they send are built once below.
export const PCAPS = '/usr/share/sip-tester';
export const DIALLED = '+14155550100';

/**
 * The workflow the calls benchmark and the soak dial into: speak, collect one key, say thanks, hang
 * up. Keys only: sipp's recorded speech must not count as an answer before its RFC 4733 digit.
 */
export const MENU_WORKFLOW = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'ask',
      type: 'dtmf',
      config: {
        prompt: 'Welcome. Press 1 for sales.',
        num_digits: 1,
        timeout_seconds: 30,
        save_to_variable: 'choice',
        speech: false,
      },
    },
    { id: 'thanks', type: 'speak', config: { text: 'Thank you.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'thanks' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
    { source: 'thanks', target: 'bye' },
  ],
};

/** One message of the caller's (`retrans`: resent until answered, for requests sent over UDP). */
function send(message: string, attributes = ''): string {
  return `  <send${attributes}>
    <![CDATA[

${message}

    ]]>
  </send>`;
}

/** Our number called from `+<caller>[call_number]`, offering `codecs` (m-line and attribute lines). */
function invite(caller: string, codecs: { formats: string; lines: string[] }, attributes: string): string {
  return send(
    `      INVITE sip:${DIALLED}@__DOMAIN__ SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:${caller}[call_number]@carrier.test>;tag=[pid]SIPpTag00[call_number]
      To: <sip:${DIALLED}@__DOMAIN__>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: <sip:sipp@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Type: application/sdp
      Content-Length: [len]

      v=0
      o=carrier 1 1 IN IP[local_ip_type] [local_ip]
      s=-
      c=IN IP[media_ip_type] [media_ip]
      t=0 0
      m=audio [media_port] RTP/AVP ${codecs.formats}
${codecs.lines.map((l) => `      ${l}`).join('\n')}`,
    attributes,
  );
}

/** A request inside the call's dialog (the ACK of the 200, our BYE). */
function inDialog(caller: string, method: 'ACK' | 'BYE', cseq: number, attributes = ''): string {
  return send(
    `      ${method} sip:${DIALLED}@__DOMAIN__ SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:${caller}[call_number]@carrier.test>;tag=[pid]SIPpTag00[call_number]
      To: <sip:${DIALLED}@__DOMAIN__>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: ${cseq} ${method}
      Max-Forwards: 70
      Content-Length: 0`,
    attributes,
  );
}

const PCMU = { formats: '0 101', lines: ['a=rtpmap:0 PCMU/8000', 'a=rtpmap:101 telephone-event/8000'] };
const PCMA = {
  formats: '8 101',
  lines: ['a=rtpmap:8 PCMA/8000', 'a=rtpmap:101 telephone-event/8000', 'a=fmtp:101 0-15'],
};

function scenario(name: string, steps: string[]): string {
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="${name}">
${steps.join('\n')}
</scenario>
`;
}

const PROVISIONAL = [
  '  <recv response="100" optional="true"></recv>',
  '  <recv response="180" optional="true"></recv>',
];

/** Answered, then hung up by the caller after 1 s (the set-up part, and answered overload calls). */
function answeredThenBye(caller: string, answer: string): string[] {
  return [
    answer,
    inDialog(caller, 'ACK', 1),
    '  <pause milliseconds="1000"/>',
    inDialog(caller, 'BYE', 2, ' retrans="500"'),
  ];
}

export const SETUP_SCENARIO = scenario('bench: set up a call, hang up after 1 s', [
  invite('+4930555', PCMU, ' retrans="500" start_rtd="invite"'),
  ...PROVISIONAL,
  ...answeredThenBye('+4930555', '  <recv response="200" rtd="invite"></recv>'),
  '  <recv response="200" crlf="true"></recv>',
]);

export const HOLD_SCENARIO = scenario('bench: a held call with g711a audio and an RFC 4733 digit', [
  invite('+4930777', PCMA, ' retrans="500"'),
  ...PROVISIONAL,
  '  <recv response="200"></recv>',
  inDialog('+4930777', 'ACK', 1),
  `  <nop><action><exec play_pcap_audio="${PCAPS}/g711a.pcap"/></action></nop>`,
  '  <pause milliseconds="7500"/>',
  `  <nop><action><exec play_pcap_audio="${PCAPS}/dtmf_2833_1.pcap"/></action></nop>`,
  '  <recv request="BYE"></recv>',
  send(`      SIP/2.0 200 OK
      [last_Via:]
      [last_From:]
      [last_To:]
      [last_Call-ID:]
      [last_CSeq:]
      Content-Length: 0`),
]);

/**
 * The carrier at more than the node takes (the overload part): the set-up scenario, except that a
 * 503 is a refusal, not a failure: sipp ACKs it and the call ends there. The benchmark times
 * both answers from sipp's message trace (-trace_msg), per Call-ID.
 */
export const OVERLOAD_SCENARIO = scenario(
  'bench: a call offered to an overloaded node: answered, or refused 503',
  [
    invite('+4930888', PCMU, ' retrans="500" start_rtd="invite"'),
    ...PROVISIONAL,
    '  <recv response="503" optional="true" next="refused"></recv>',
    ...answeredThenBye('+4930888', '  <recv response="200" rtd="invite"></recv>'),
    '  <recv response="200" crlf="true" next="done"></recv>',
    '  <label id="refused"/>',
    send(`      ACK sip:${DIALLED}@__DOMAIN__ SIP/2.0
      [last_Via:]
      [last_From:]
      [last_To:]
      [last_Call-ID:]
      CSeq: 1 ACK
      Max-Forwards: 70
      Content-Length: 0`),
    '  <label id="done"/>',
  ],
);
