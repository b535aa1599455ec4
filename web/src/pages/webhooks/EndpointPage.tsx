// Webhook endpoint (being built).
import { PageHeader } from '../../components/PageHeader';

export function EndpointPage() {
  return <PageHeader title="Webhook endpoint" />;
}
