// Webhooks (being built).
import { PageHeader } from '../../components/PageHeader';

export function WebhooksPage() {
  return <PageHeader title="Webhooks" />;
}
