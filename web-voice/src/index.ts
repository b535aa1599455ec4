// switchboard/web: a browser call into a Switchboard web session. Give it a join token (minted by
// your backend with POST /sessions; never put an API key in a browser) and it asks for the
// microphone, opens the session's realtime socket, negotiates the WebRTC peer over it (offer,
// answer, trickled ICE candidates), plays what the workflow says and reports the transcript.
// The /join page and /widget.js of the service are built on it.
//
//   const call = await joinCall({ token, baseUrl: 'https://voice.example.com' });
//   call.on('transcript', (t) => console.log(t.role, t.text));
//   call.sendDigits('1');
//   await call.hangUp();
export {
  joinCall,
  fetchJoinInfo,
  JoinError,
  WebVoiceCall,
  type JoinErrorCode,
  type JoinInfo,
  type JoinOptions,
  type CallEvents,
  type CallStatus,
  type TranscriptEntry,
} from './call.js';
export { tokenFromFragment } from './fragment.js';
