// Overview (being built).
import { PageHeader } from '../../components/PageHeader';

export function OverviewPage() {
  return <PageHeader title="Overview" />;
}
