// Phone number (being built).
import { PageHeader } from '../../components/PageHeader';

export function NumberPage() {
  return <PageHeader title="Phone number" />;
}
