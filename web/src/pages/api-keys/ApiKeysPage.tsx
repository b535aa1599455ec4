// API keys (being built).
import { PageHeader } from '../../components/PageHeader';

export function ApiKeysPage() {
  return <PageHeader title="API keys" />;
}
