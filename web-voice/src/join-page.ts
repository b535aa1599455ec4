// The /join page: reads the join token from the fragment, checks it (an expired link says so at
// once), and on "Start call" asks for the microphone and joins. Shows the call's status, the live
// transcript of both sides, a keypad, mute and hang-up. The call button is a click so the browser
// lets the page play audio and ask for the microphone.
import { JoinError, joinCall, fetchJoinInfo, type WebVoiceCall } from './call.js';
import { markCut } from './transcript-line.js';
import { tokenFromFragment } from './fragment.js';

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'];

const el = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

function main(): void {
  const status = el<HTMLParagraphElement>('status');
  const notice = el<HTMLDivElement>('notice');
  const start = el<HTMLButtonElement>('start');
  const orb = el<HTMLDivElement>('orb');
  const panel = el<HTMLElement>('transcript-panel');
  const list = el<HTMLOListElement>('transcript');
  const keypad = el<HTMLElement>('keypad');
  const controls = el<HTMLElement>('controls');
  const mute = el<HTMLButtonElement>('mute');
  const keys = el<HTMLButtonElement>('keys');
  const hangup = el<HTMLButtonElement>('hangup');
  let call: WebVoiceCall | null = null;

  const say = (text: string): void => {
    status.textContent = text;
  };
  const warn = (text: string | null): void => {
    notice.hidden = text === null;
    notice.textContent = text ?? '';
  };
  const line = (role: 'assistant' | 'user' | 'event', text: string): void => {
    panel.hidden = false;
    const item = document.createElement('li');
    item.className = role;
    if (role !== 'event') {
      const who = document.createElement('span');
      who.className = 'who';
      who.textContent = role === 'assistant' ? 'Assistant' : 'You';
      item.append(who);
    }
    item.append(document.createTextNode(text));
    list.append(item);
    list.scrollTop = list.scrollHeight;
  };
  const ended = (text: string): void => {
    say(text);
    orb.classList.remove('live');
    orb.classList.add('ended');
    controls.hidden = true;
    keypad.hidden = true;
    start.hidden = true;
  };

  for (const key of KEYS) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = key;
    b.setAttribute('aria-label', `Key ${key}`);
    b.addEventListener('click', () => {
      call?.sendDigits(key);
      line('event', `You pressed ${key}`);
    });
    keypad.append(b);
  }
  keys.addEventListener('click', () => {
    keypad.hidden = !keypad.hidden;
    keys.setAttribute('aria-expanded', String(!keypad.hidden));
  });
  mute.addEventListener('click', () => {
    const muted = mute.getAttribute('aria-pressed') !== 'true';
    call?.setMuted(muted);
    mute.setAttribute('aria-pressed', String(muted));
    mute.textContent = muted ? 'Unmute' : 'Mute';
  });
  hangup.addEventListener('click', () => {
    hangup.disabled = true;
    say('Hanging up…');
    void call?.hangUp();
  });

  const token = tokenFromFragment();
  if (!token) {
    say('No call link');
    warn('This page needs a call link with a token (…/join#token=…). Ask for a new link.');
    start.hidden = true;
    return;
  }
  const fail = (err: unknown): void => {
    const message = err instanceof JoinError ? err.message : 'The call could not start. Try again.';
    warn(message);
    const code = err instanceof JoinError ? err.code : 'error';
    document.body.dataset.error = code;
    if (code === 'microphone_denied' || code === 'microphone_missing' || code === 'network') {
      say('Not connected');
      start.disabled = false;
      start.textContent = 'Try again';
    } else {
      ended('Cannot join this call');
    }
  };

  // Check the link before offering the call, so an expired one is told before any prompt.
  fetchJoinInfo(token).then(() => {
    say('Ready when you are. Your browser will ask for the microphone.');
    start.disabled = false;
  }, fail);

  start.addEventListener('click', () => {
    start.disabled = true;
    warn(null);
    say('Connecting…');
    joinCall({ token }).then((c) => {
      call = c;
      document.body.dataset.call = 'connecting';
      start.hidden = true;
      controls.hidden = false;
      orb.classList.add('live');
      c.on('status', (s) => {
        document.body.dataset.call = s;
        if (s === 'connected') say('Connected: speak any time.');
      });
      c.on('transcript', (t) => line(t.role, t.text));
      c.on('partyKeys', (k) => line('event', `The other party pressed ${k.digits}`));
      c.on('interrupted', (entry) => {
        const last = [...list.querySelectorAll('li.assistant')].at(-1);
        if (last) markCut(last, entry);
      });
      c.on('error', (e) => {
        if (e.code === 'autoplay_blocked') {
          say('Click anywhere to hear the call.');
          document.addEventListener('click', () => void c.audioElement.play(), { once: true });
        }
      });
      c.on('ended', (e) => {
        document.body.dataset.call = 'ended';
        line('event', `Call ended (${e.reason.replace(/_/g, ' ')})`);
        ended('Call ended. You can close this page.');
      });
      document.body.append(c.audioElement);
    }, fail);
  });
}

// A new link opened in this tab changes only the fragment, which loads nothing: start afresh.
window.addEventListener('hashchange', () => window.location.reload());

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', main);
else main();
