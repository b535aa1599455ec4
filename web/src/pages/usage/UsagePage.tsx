// Usage (being built).
import { PageHeader } from '../../components/PageHeader';

export function UsagePage() {
  return <PageHeader title="Usage" />;
}
