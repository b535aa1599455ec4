// The shell around every signed-in page: a skip link, the navigation (a landmark, with the current
// page marked), and the main region the routes render into.
import { NavLink, Outlet } from 'react-router';
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
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" /> Switchboard
        </div>
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
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
