// The shell around every signed-in page: a skip link, the navigation (a landmark, with the current
// page marked), and the main region the routes render into. On a phone the navigation folds into
// a Menu button in the top bar, so the page starts right under the bar.
import { useEffect, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useAuth } from '../auth/AuthContext';

const NAV: Array<{ group: string; items: Array<{ to: string; label: string }> }> = [
  {
    group: 'Build',
    items: [
      { to: '/', label: 'Overview' },
      { to: '/projects', label: 'Projects' },
      { to: '/workflows', label: 'Workflows' },
      { to: '/agents', label: 'Agents' },
    ],
  },
  {
    group: 'Telephony',
    items: [
      { to: '/telephony/trunks', label: 'SIP trunks' },
      { to: '/telephony/numbers', label: 'Phone numbers' },
    ],
  },
  {
    group: 'Observe',
    items: [
      { to: '/calls', label: 'Calls' },
      { to: '/sessions', label: 'Sessions' },
      { to: '/conversations', label: 'Conversations' },
      { to: '/usage', label: 'Usage' },
    ],
  },
  {
    group: 'Settings',
    items: [
      { to: '/webhooks', label: 'Webhooks' },
      { to: '/api-keys', label: 'API keys' },
    ],
  },
];

export function Layout() {
  const { key, signOut } = useAuth();
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  // Going to a page folds the menu again.
  useEffect(() => setMenuOpen(false), [pathname]);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside
        className={menuOpen ? 'sidebar menu-open' : 'sidebar'}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && menuOpen) setMenuOpen(false);
        }}
      >
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" /> Switchboard
          <button
            type="button"
            className="btn btn-small btn-quiet menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="main-menu"
            onClick={() => setMenuOpen((open) => !open)}
          >
            {menuOpen ? 'Close' : 'Menu'}
          </button>
        </div>
        <div id="main-menu" className="sidebar-menu">
          <nav aria-label="Main">
            {NAV.map((section) => (
              <div className="nav-group" key={section.group}>
                <div className="nav-group-title" aria-hidden="true">
                  {section.group}
                </div>
                <ul aria-label={section.group}>
                  {section.items.map((item) => (
                    <li key={item.to}>
                      <NavLink
                        to={item.to}
                        end={item.to === '/'}
                        className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}
                      >
                        {item.label}
                      </NavLink>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </nav>
          <div className="sidebar-footer">
            <div className="key-chip" title="The key this tab is signed in with">
              {key ? `${key.slice(0, 12)}…` : ''}
            </div>
            <button type="button" className="btn btn-small btn-quiet" onClick={signOut}>
              Sign out
            </button>
          </div>
        </div>
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
