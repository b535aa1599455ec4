// SIP trunk (being built).
import { PageHeader } from '../../components/PageHeader';

export function TrunkPage() {
  return <PageHeader title="SIP trunk" />;
}
