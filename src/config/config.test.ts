import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultNodeId, loadConfig, NODE_ID_PATTERN } from './config.js';

describe('loadConfig', () => {
  it('reads overload control and the SIP flood limits, derived and defaulted when unset', () => {
    expect(loadConfig({})).toMatchObject({
      admission: { maxConcurrentCalls: undefined, maxCallsPerSecond: undefined },
      sip: { flood: { ratePerSecond: 500, burst: 1000, exempt: [] }, maxWriteQueueBytes: 1024 * 1024 },
    });
    const c = loadConfig({
      MAX_CONCURRENT_CALLS: '400',
      MAX_CALLS_PER_SECOND: '120',
      SIP_FLOOD_RATE: '50',
      SIP_FLOOD_BURST: '80',
      SIP_FLOOD_EXEMPT: '10.0.0.5, 192.0.2.0/24,2001:db8::/32',
      SIP_MAX_WRITE_QUEUE_BYTES: '65536',
    });
    expect(c.admission).toEqual({ maxConcurrentCalls: 400, maxCallsPerSecond: 120 });
    expect(c.sip.flood).toEqual({
      ratePerSecond: 50,
      burst: 80,
      exempt: ['10.0.0.5', '192.0.2.0/24', '2001:db8::/32'],
    });
    expect(c.sip.maxWriteQueueBytes).toBe(65536);
    for (const [name, value] of [
      ['MAX_CONCURRENT_CALLS', '0'],
      ['MAX_CALLS_PER_SECOND', 'lots'],
      ['SIP_FLOOD_EXEMPT', '10.0.0.0/33'],
      ['SIP_FLOOD_EXEMPT', 'kamailio.local'],
      ['SIP_MAX_WRITE_QUEUE_BYTES', '10'],
    ]) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
    }
  });

  it('reads SIP_DNS_SERVERS: addresses with optional ports; unset is the system resolver; a name stops the start', () => {
    expect(loadConfig({}).sip.dnsServers).toEqual([]);
    expect(
      loadConfig({ SIP_DNS_SERVERS: '127.0.0.1:5353, 10.0.0.2,::1,[2001:db8::53]:53' }).sip.dnsServers,
    ).toEqual(['127.0.0.1:5353', '10.0.0.2', '::1', '[2001:db8::53]:53']);
    for (const value of ['dns.local', '127.0.0.1:0', '127.0.0.1:70000', '[::1]:x']) {
      expect(() => loadConfig({ SIP_DNS_SERVERS: value }), value).toThrow(ConfigError);
    }
  });

  it('reads SIP_FAILOVER_SECONDS: 4 by default, 0 off, at most timer B (32 s)', () => {
    expect(loadConfig({}).sip.failoverSeconds).toBe(4);
    expect(loadConfig({ SIP_FAILOVER_SECONDS: '0' }).sip.failoverSeconds).toBe(0);
    expect(loadConfig({ SIP_FAILOVER_SECONDS: '2' }).sip.failoverSeconds).toBe(2);
    for (const value of ['-1', '1.5', 'soon', '33']) {
      expect(() => loadConfig({ SIP_FAILOVER_SECONDS: value }), value).toThrow(ConfigError);
    }
  });

  it('reads MEDIA_TIMEOUT_SECONDS: 0 turns the media timeout off; a negative or a fraction stops the start', () => {
    expect(loadConfig({ MEDIA_TIMEOUT_SECONDS: '0' }).sip.mediaTimeoutSeconds).toBe(0);
    expect(loadConfig({ MEDIA_TIMEOUT_SECONDS: '300' }).sip.mediaTimeoutSeconds).toBe(300);
    for (const value of ['-1', '1.5', 'never', '86401']) {
      expect(() => loadConfig({ MEDIA_TIMEOUT_SECONDS: value }), value).toThrow(ConfigError);
    }
  });

  it('reads MEDIA_HOLD_TIMEOUT_SECONDS: 30 minutes by default, 0 turns it off, bounded like the media timeout', () => {
    expect(loadConfig({}).sip.mediaHoldTimeoutSeconds).toBe(1800);
    expect(loadConfig({ MEDIA_HOLD_TIMEOUT_SECONDS: '0' }).sip.mediaHoldTimeoutSeconds).toBe(0);
    expect(loadConfig({ MEDIA_HOLD_TIMEOUT_SECONDS: '300' }).sip.mediaHoldTimeoutSeconds).toBe(300);
    for (const value of ['-1', '1.5', 'never', '86401']) {
      expect(() => loadConfig({ MEDIA_HOLD_TIMEOUT_SECONDS: value }), value).toThrow(ConfigError);
    }
  });

  it('has the defaults the README lists', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      nodeId: defaultNodeId(os.hostname(), 5060),
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      host: '127.0.0.1',
      port: 8080,
      publicBaseUrl: 'http://127.0.0.1:8080',
      sip: {
        host: '127.0.0.1',
        port: 5060,
        tlsPort: 5061,
        domain: 'sip.localhost',
        rtpPortMin: 20000,
        rtpPortMax: 30000,
        codecs: ['PCMU', 'PCMA', 'opus'],
        ringback: 'us',
        mediaTimeoutSeconds: 60,
        mediaHoldTimeoutSeconds: 1800,
        failoverSeconds: 4,
      },
      rateLimitPerMinute: 120,
      webhookAllowedCidrs: [],
      logLevel: 'info',
      bodyLimitBytes: 1024 * 1024,
    });
    expect(c.providers.llm_vendor_1).toEqual({ apiKey: undefined, baseUrl: undefined });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      SWITCHBOARD_DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@h/db',
      HOST: '0.0.0.0',
      PORT: '9000',
      PUBLIC_BASE_URL: 'https://api.example.com/',
      SIP_PORT: '0',
      SWITCHBOARD_NODE_ID: 'sip-a.eu-west:1',
      RATE_LIMIT_PER_MINUTE: '5',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8, 10.0.0.0/8',
      LLM_VENDOR_2_API_KEY: 'k',
      LLM_FALLBACKS: 'llm_vendor_1=llm_vendor_2',
    });
    expect(c.dataDir).toBe('/tmp/x');
    expect(c.publicBaseUrl).toBe('https://api.example.com');
    expect(c.sip.port).toBe(0);
    expect(c.nodeId).toBe('sip-a.eu-west:1');
    expect(c.rateLimitPerMinute).toBe(5);
    expect(c.webhookAllowedCidrs).toEqual(['127.0.0.0/8', '10.0.0.0/8']);
    expect(c.providers.llm_vendor_2!.apiKey).toBe('k');
    expect(c.llmFallbacks).toBe('llm_vendor_1=llm_vendor_2');
  });

  it('reads the browser voice variables: WEBRTC_HOST defaults to SIP_HOST', () => {
    expect(loadConfig({ SIP_HOST: '10.0.0.5' }).webrtc).toEqual({
      host: '10.0.0.5',
      publicIp: undefined,
      iceServers: [],
      turn: null,
    });
    const c = loadConfig({
      WEBRTC_HOST: '0.0.0.0',
      WEBRTC_PUBLIC_IP: '203.0.113.7',
      WEBRTC_ICE_SERVERS:
        '[{"urls":"stun:stun.example.com:3478"},{"urls":["turn:turn.example.com"],"username":"u","credential":"p"}]',
    });
    expect(c.webrtc).toEqual({
      host: '0.0.0.0',
      publicIp: '203.0.113.7',
      iceServers: [
        { urls: 'stun:stun.example.com:3478' },
        { urls: ['turn:turn.example.com'], username: 'u', credential: 'p' },
      ],
      turn: null,
    });
    expect(() => loadConfig({ WEBRTC_PUBLIC_IP: 'example.com' })).toThrow(
      new ConfigError('WEBRTC_PUBLIC_IP must be an IP address, got "example.com"'),
    );
    expect(() => loadConfig({ WEBRTC_ICE_SERVERS: '{"urls":"stun:x"}' })).toThrow(
      new ConfigError('WEBRTC_ICE_SERVERS must be a JSON array of RTCIceServer objects'),
    );
    expect(() => loadConfig({ WEBRTC_ICE_SERVERS: '[{"urls":"http://x"}]' })).toThrow(
      new ConfigError('WEBRTC_ICE_SERVERS[0].urls must be a stun:, turn: or turns: URL, or a list of them'),
    );
    expect(() => loadConfig({ WEBRTC_ICE_SERVERS: '[{"urls":"turn:x","credential":5}]' })).toThrow(
      new ConfigError('WEBRTC_ICE_SERVERS[0].credential must be a string'),
    );
  });

  it('reads a TURN server with minted credentials (WEBRTC_TURN_SECRET, WEBRTC_TURN_URLS)', () => {
    const c = loadConfig({
      WEBRTC_TURN_SECRET: 's3cret',
      WEBRTC_TURN_URLS: 'turn:turn.example.com:3478?transport=udp, turns:turn.example.com:443',
    });
    expect(c.webrtc.turn).toEqual({
      secret: 's3cret',
      urls: ['turn:turn.example.com:3478?transport=udp', 'turns:turn.example.com:443'],
      ttlSeconds: 43_200,
    });
    expect(
      loadConfig({ WEBRTC_TURN_SECRET: 's', WEBRTC_TURN_URLS: 'turn:x', WEBRTC_TURN_TTL_SECONDS: '600' })
        .webrtc.turn?.ttlSeconds,
    ).toBe(600);
    expect(() => loadConfig({ WEBRTC_TURN_SECRET: 's' })).toThrow(
      new ConfigError('WEBRTC_TURN_SECRET needs WEBRTC_TURN_URLS (the turn: URLs it is for)'),
    );
    expect(() => loadConfig({ WEBRTC_TURN_URLS: 'turn:x' })).toThrow(
      new ConfigError("WEBRTC_TURN_URLS needs WEBRTC_TURN_SECRET (the TURN server's static-auth-secret)"),
    );
    expect(() => loadConfig({ WEBRTC_TURN_SECRET: 's', WEBRTC_TURN_URLS: 'stun:x' })).toThrow(
      new ConfigError('WEBRTC_TURN_URLS must list turn: or turns: URLs; got "stun:x"'),
    );
  });

  it('refuses bad values with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(
      new ConfigError('PORT must be a whole number, got "eighty"'),
    );
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT must be between 0 and 65535/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must be a postgres/);
    expect(() => loadConfig({ RTP_PORT_MIN: '30000', RTP_PORT_MAX: '20000' })).toThrow(/RTP_PORT_MAX/);
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ SIP_TLS_KEY: '/etc/sip/key.pem' })).toThrow(
      new ConfigError('SIP_TLS_KEY is set but SIP_TLS_CERT is not'),
    );
  });

  it('turns SIP TLS on with a certificate, reading the key from its file unless SIP_TLS_KEY says', () => {
    expect(loadConfig({}).sip).toMatchObject({ tlsCert: undefined, tlsKey: undefined });
    expect(loadConfig({ SIP_TLS_CERT: '/etc/sip/both.pem' }).sip).toMatchObject({
      tlsCert: '/etc/sip/both.pem',
      tlsKey: '/etc/sip/both.pem',
    });
    expect(loadConfig({ SIP_TLS_CERT: '/c.pem', SIP_TLS_KEY: '/k.pem' }).sip).toMatchObject({
      tlsCert: '/c.pem',
      tlsKey: '/k.pem',
    });
  });

  it('reads SIP_TLS_CA (and NODE_EXTRA_CA_CERTS beside it) for outbound TLS, with or without a certificate', () => {
    expect(loadConfig({}).sip).toMatchObject({ tlsCa: undefined, nodeExtraCaCerts: undefined });
    expect(loadConfig({ SIP_TLS_CA: '/etc/sip/carrier-ca.pem' }).sip).toMatchObject({
      tlsCert: undefined,
      tlsCa: '/etc/sip/carrier-ca.pem',
    });
    expect(loadConfig({ SIP_TLS_CA: '/ca.pem', NODE_EXTRA_CA_CERTS: '/extra.pem' }).sip).toMatchObject({
      tlsCa: '/ca.pem',
      nodeExtraCaCerts: '/extra.pem',
    });
  });

  it('reads SIP_CODECS as a preference order, names in any case', () => {
    expect(loadConfig({ SIP_CODECS: 'PCMA,PCMU' }).sip.codecs).toEqual(['PCMA', 'PCMU']);
    expect(loadConfig({ SIP_CODECS: ' OPUS , pcma ' }).sip.codecs).toEqual(['opus', 'PCMA']);
    expect(loadConfig({ SIP_CODECS: 'pcmu' }).sip.codecs).toEqual(['PCMU']);
    expect(loadConfig({ SIP_RINGBACK: ' UK ' }).sip.ringback).toBe('uk');
    expect(loadConfig({ SIP_RINGBACK: 'off' }).sip.ringback).toBe('off');
    expect(() => loadConfig({ SIP_RINGBACK: 'fr' })).toThrow(/SIP_RINGBACK must be one of us, uk, eu, off/);
  });

  it('refuses a SIP_CODECS with unknown names, no names, empty entries or duplicates, in one line', () => {
    expect(() => loadConfig({ SIP_CODECS: 'PCMU,G729' })).toThrow(
      new ConfigError('SIP_CODECS: unknown codec "G729" (known: PCMU, PCMA, opus)'),
    );
    for (const empty of ['', ' ', ',', ' , ']) {
      expect(() => loadConfig({ SIP_CODECS: empty })).toThrow(
        new ConfigError('SIP_CODECS must name at least one of PCMU, PCMA, opus'),
      );
    }
    expect(() => loadConfig({ SIP_CODECS: 'PCMU,,PCMA' })).toThrow(
      new ConfigError('SIP_CODECS has an empty entry in "PCMU,,PCMA"'),
    );
    expect(() => loadConfig({ SIP_CODECS: 'pcmu,PCMA,PCMU' })).toThrow(
      new ConfigError('SIP_CODECS names PCMU more than once'),
    );
  });

  it('defaults SWITCHBOARD_NODE_ID to the host name and the SIP port, the same on every start', () => {
    expect(loadConfig({}).nodeId).toBe(loadConfig({}).nodeId);
    expect(loadConfig({ SIP_PORT: '5080' }).nodeId).toBe(defaultNodeId(os.hostname(), 5080));
    expect(loadConfig({ SWITCHBOARD_NODE_ID: '' }).nodeId).toBe(defaultNodeId(os.hostname(), 5060));
    expect(defaultNodeId('sip-1.example.net', 5060)).toBe('sip-1.example.net:5060');
    expect(defaultNodeId('sip-2.example.net', 5060)).not.toBe(defaultNodeId('sip-1.example.net', 5060));
    expect(defaultNodeId('box', 5060)).not.toBe(defaultNodeId('box', 5062));
  });

  it('makes a valid default id of any host name: odd characters replaced, long names hashed', () => {
    expect(defaultNodeId('my host/ü', 5060)).toBe('my-host--:5060');
    expect(defaultNodeId('', 5060)).toBe('localhost:5060');
    const long = (tail: string) => `${'a'.repeat(70)}.${tail}.example.net`;
    const a = defaultNodeId(long('one'), 5060);
    const b = defaultNodeId(long('two'), 5060);
    for (const id of [a, b]) {
      expect(id).toMatch(NODE_ID_PATTERN);
      expect(id).toHaveLength(64);
      expect(id.endsWith(':5060')).toBe(true);
    }
    expect(a).not.toBe(b);
    expect(defaultNodeId(long('one'), 5060)).toBe(a);
  });

  it('refuses a SWITCHBOARD_NODE_ID that is not a short token, in one line', () => {
    for (const bad of ['sip a', 'sip/1', 'n'.repeat(65), 'nœud', '"x"']) {
      expect(() => loadConfig({ SWITCHBOARD_NODE_ID: bad })).toThrow(
        new ConfigError(
          `SWITCHBOARD_NODE_ID must be 1 to 64 of A-Z a-z 0-9 . _ : -, got ${JSON.stringify(bad)}`,
        ),
      );
    }
    expect(() => loadConfig({ SWITCHBOARD_NODE_ID: 'sip-1\nsip-2' })).toThrow(
      new ConfigError('SWITCHBOARD_NODE_ID must be 1 to 64 of A-Z a-z 0-9 . _ : -, got "sip-1\\nsip-2"'),
    );
    expect(loadConfig({ SWITCHBOARD_NODE_ID: 'n'.repeat(64) }).nodeId).toBe('n'.repeat(64));
  });
});
