// Session (being built).
import { PageHeader } from '../../components/PageHeader';

export function SessionPage() {
  return <PageHeader title="Session" />;
}
