// Agent (being built).
import { PageHeader } from '../../components/PageHeader';

export function AgentPage() {
  return <PageHeader title="Agent" />;
}
