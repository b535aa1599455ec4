// Conversations (being built).
import { PageHeader } from '../../components/PageHeader';

export function ConversationsPage() {
  return <PageHeader title="Conversations" />;
}
