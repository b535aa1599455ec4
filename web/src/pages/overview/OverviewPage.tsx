// The landing page after sign-in: where this workspace stands (counts, recent calls) and the
// next step of getting a phone number answered by a workflow.
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { Badge } from '../../components/Badge';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { formatTime } from '../../components/format';
import { PageHeader, Section } from '../../components/PageHeader';

async function loadOverview() {
  const count = async (p: Promise<{ meta: { total: number } }>) => (await p).meta.total;
  const [projects, workflows, trunks, numbers, calls] = await Promise.all([
    count(call(api.GET('/api/v1/projects', { params: { query: { per_page: 1 } } }))),
    count(call(api.GET('/api/v1/workflows', { params: { query: { per_page: 1 } } }))),
    count(call(api.GET('/api/v1/sip-trunks', { params: { query: { per_page: 1 } } }))),
    count(call(api.GET('/api/v1/phone-numbers', { params: { query: { per_page: 1 } } }))),
    call(api.GET('/api/v1/calls', { params: { query: { per_page: 5 } } })),
  ]);
  return { projects, workflows, trunks, numbers, calls };
}

export function OverviewPage() {
  const overview = useLoad(loadOverview, []);
  if (overview.error) return <ErrorBanner error={overview.error} onRetry={overview.reload} />;
  if (!overview.data) return <Loading />;
  const o = overview.data;
  const steps = [
    { done: o.projects > 0, label: 'Create a project', to: '/projects' },
    { done: o.workflows > 0, label: 'Build and publish a workflow', to: '/workflows' },
    { done: o.trunks > 0, label: 'Connect your carrier with a SIP trunk', to: '/telephony/trunks' },
    { done: o.numbers > 0, label: 'Register a number and give it a dispatch rule', to: '/telephony/numbers' },
    { done: o.calls.meta.total > 0, label: 'Take your first call', to: '/calls' },
  ];
  const next = steps.find((s) => !s.done);
  return (
    <>
      <PageHeader title="Overview" description="Your workspace at a glance." />
      <div className="stats">
        {[
          ['Projects', o.projects, '/projects'],
          ['Workflows', o.workflows, '/workflows'],
          ['SIP trunks', o.trunks, '/telephony/trunks'],
          ['Phone numbers', o.numbers, '/telephony/numbers'],
          ['Calls', o.calls.meta.total, '/calls'],
        ].map(([label, n, to]) => (
          <Link className="stat" key={label as string} to={to as string}>
            <div className="stat-label">{label}</div>
            <div className="stat-value">{n}</div>
          </Link>
        ))}
      </div>
      <div className="split">
        <Section title="Recent calls" id="recent">
          {o.calls.data.length === 0 ? (
            <p className="muted">No calls yet.</p>
          ) : (
            <table className="table">
              <tbody>
                {o.calls.data.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <Link to={`/calls/${c.id}`}>{formatTime(c.created_at)}</Link>
                    </td>
                    <td className="mono">
                      {c.from} → {c.to}
                    </td>
                    <td>
                      <Badge value={c.status} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Section>
        <Section title="Getting started" id="start">
          <ol className="steps">
            {steps.map((s) => (
              <li key={s.label}>
                {s.done ? <Badge value="done" tone="good" /> : null} <Link to={s.to}>{s.label}</Link>
              </li>
            ))}
          </ol>
          {next && <p className="muted">Next: {next.label.toLowerCase()}.</p>}
        </Section>
      </div>
    </>
  );
}
