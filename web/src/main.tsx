// Entry point: takes a sign-in key from the URL fragment (npm start's first-run link) before
// anything renders, then mounts the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { adoptKeyFromFragment } from './auth/session-key';
import './styles/app.css';

adoptKeyFromFragment();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
