// Call (being built).
import { PageHeader } from '../../components/PageHeader';

export function CallPage() {
  return <PageHeader title="Call" />;
}
