// SIP trunks (being built).
import { PageHeader } from '../../components/PageHeader';

export function TrunksPage() {
  return <PageHeader title="SIP trunks" />;
}
