// Conversation (being built).
import { PageHeader } from '../../components/PageHeader';

export function ConversationPage() {
  return <PageHeader title="Conversation" />;
}
