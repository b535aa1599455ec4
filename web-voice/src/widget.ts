// /widget.js: a call button for any site. The customer's page includes
//
//   <script src="https://voice.example.com/widget.js" data-token-url="/voice/token" async></script>
//
// and a click POSTs to `data-token-url` (the customer's own backend, with the visitor's cookies),
// which mints a session with its API key (POST /sessions) and answers its JSON (the whole reply, or
// `{"join_token": "…"}`). The API key never reaches the browser. The call then runs through the
// same module as the /join page, from a panel in a shadow root (the site's styles do not leak in,
// and constructed style sheets pass a strict CSP on the host page).
import { JoinError, joinCall, type WebVoiceCall } from './call.js';
import { markCut } from './transcript-line.js';

const STYLE = `
:host { all: initial; position: fixed; z-index: 2147483000; right: 20px; bottom: 20px; font-family: system-ui, sans-serif; }
button { font: inherit; cursor: pointer; }
.fab { border: 0; border-radius: 999px; padding: 12px 20px; background: var(--sb-color, #4f46e5); color: #fff; font-weight: 600; box-shadow: 0 6px 24px rgb(0 0 0 / .2); }
.fab.live { background: #dc2626; }
.panel { position: absolute; right: 0; bottom: 60px; width: 300px; background: #fff; color: #14161c; border-radius: 16px; box-shadow: 0 10px 40px rgb(0 0 0 / .2); padding: 14px; display: flex; flex-direction: column; gap: 10px; }
.panel[hidden], .keypad[hidden] { display: none; }
.status { margin: 0; font-size: 13px; color: #5d6270; }
ol { list-style: none; margin: 0; padding: 0; max-height: 220px; overflow-y: auto; display: flex; flex-direction: column; gap: 6px; }
li { font-size: 14px; padding: 6px 10px; border-radius: 12px; max-width: 85%; }
li.assistant { background: #eef0f5; align-self: flex-start; }
li.user { background: var(--sb-color, #4f46e5); color: #fff; align-self: flex-end; }
.keypad { display: grid; grid-template-columns: repeat(3, 1fr); gap: 6px; }
.keypad button, .row button { border: 1px solid #e2e4ea; background: #f4f5f8; border-radius: 10px; padding: 8px 0; }
.row { display: flex; gap: 8px; } .row button { flex: 1; }
.unheard { color: #5d6270; text-decoration: line-through dotted; } .cut { font-style: italic; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

interface TokenReply {
  join_token?: string;
  token?: string;
  data?: { join_token?: string };
}

/** The join token out of whatever the customer's backend answered. */
export function tokenOf(reply: TokenReply): string | null {
  return reply.join_token ?? reply.data?.join_token ?? reply.token ?? null;
}

function mount(script: HTMLScriptElement): void {
  const baseUrl = new URL(script.src).origin;
  const tokenUrl = script.dataset.tokenUrl;
  const host = document.createElement('div');
  host.className = 'switchboard-widget';
  const root = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLE);
  root.adoptedStyleSheets = [sheet];
  if (script.dataset.color) host.style.setProperty('--sb-color', script.dataset.color);

  const label = script.dataset.label ?? 'Talk to us';
  const fab = document.createElement('button');
  fab.className = 'fab';
  fab.type = 'button';
  fab.textContent = label;
  const panel = document.createElement('div');
  panel.className = 'panel';
  panel.hidden = true;
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-label', 'Voice call');
  const status = document.createElement('p');
  status.className = 'status';
  status.setAttribute('role', 'status');
  const list = document.createElement('ol');
  list.setAttribute('aria-live', 'polite');
  const keypad = document.createElement('div');
  keypad.className = 'keypad';
  keypad.hidden = true;
  const row = document.createElement('div');
  row.className = 'row';
  const keysButton = document.createElement('button');
  keysButton.type = 'button';
  keysButton.textContent = 'Keypad';
  row.append(keysButton);
  panel.append(status, list, keypad, row);
  root.append(panel, fab);
  document.body.append(host);

  let call: WebVoiceCall | null = null;
  for (const key of ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#']) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = key;
    b.addEventListener('click', () => call?.sendDigits(key));
    keypad.append(b);
  }
  keysButton.addEventListener('click', () => (keypad.hidden = !keypad.hidden));
  const idle = (text: string): void => {
    call = null;
    status.textContent = text;
    fab.classList.remove('live');
    fab.textContent = label;
    fab.disabled = false;
  };

  fab.addEventListener('click', async () => {
    if (call) {
      fab.disabled = true;
      await call.hangUp();
      return;
    }
    panel.hidden = false;
    list.replaceChildren();
    fab.disabled = true;
    status.textContent = 'Connecting…';
    try {
      if (!tokenUrl) throw new JoinError('token_missing', 'This call button has no data-token-url.');
      const response = await fetch(tokenUrl, { method: 'POST', credentials: 'same-origin' });
      const token = response.ok ? tokenOf((await response.json()) as TokenReply) : null;
      if (!token) throw new JoinError('refused', 'A call cannot be started right now. Try again later.');
      const c = await joinCall({ token, baseUrl });
      call = c;
      root.append(c.audioElement);
      fab.disabled = false;
      fab.classList.add('live');
      fab.textContent = 'Hang up';
      status.textContent = 'Connecting audio…';
      c.on('status', (s) => {
        if (s === 'connected') status.textContent = 'Connected: speak any time.';
      });
      c.on('transcript', (t) => {
        const item = document.createElement('li');
        item.className = t.role;
        item.textContent = t.text;
        list.append(item);
        list.scrollTop = list.scrollHeight;
      });
      c.on('interrupted', (entry) => {
        const last = [...list.querySelectorAll('li.assistant')].at(-1);
        if (last) markCut(last, entry);
      });
      c.on('ended', () => idle('Call ended.'));
    } catch (err) {
      idle(err instanceof JoinError ? err.message : 'The call could not start. Try again.');
    }
  });
}

const current = document.currentScript as HTMLScriptElement | null;
if (current) {
  if (document.body) mount(current);
  else document.addEventListener('DOMContentLoaded', () => mount(current));
}
