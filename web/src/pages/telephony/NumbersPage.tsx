// Phone numbers (being built).
import { PageHeader } from '../../components/PageHeader';

export function NumbersPage() {
  return <PageHeader title="Phone numbers" />;
}
