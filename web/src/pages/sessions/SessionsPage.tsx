// Sessions (being built).
import { PageHeader } from '../../components/PageHeader';

export function SessionsPage() {
  return <PageHeader title="Sessions" />;
}
