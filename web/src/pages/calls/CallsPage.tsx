// Calls (being built).
import { PageHeader } from '../../components/PageHeader';

export function CallsPage() {
  return <PageHeader title="Calls" />;
}
