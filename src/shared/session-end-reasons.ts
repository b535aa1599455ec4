// Why a session ended: one list for the engine that decides it, the store that records it and the
// live events that carry it between nodes (a reason off the wire must be one of these).

export const SESSION_END_REASONS = [
  'completed', // the workflow reached end or hangup
  'transferred', // handed to a human or another number
  'failed', // the workflow aborted (node error, maximum duration, step limit)
  'force_ended', // DELETE /sessions/{id}
  'client_ended', // the client asked to end (realtime `end` message, chat quit)
  'client_disconnected', // the web client's socket or peer connection went away, or the server shut down under it
  'timeout', // nobody joined a pending session in time
  'caller_hangup', // the phone caller hung up
  'media_failed', // a web session's peer connection failed (ICE or DTLS lost, never connected)
] as const;

export type SessionEndReason = (typeof SESSION_END_REASONS)[number];
