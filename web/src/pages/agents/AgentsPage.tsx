// Agents (being built).
import { PageHeader } from '../../components/PageHeader';

export function AgentsPage() {
  return <PageHeader title="Agents" />;
}
