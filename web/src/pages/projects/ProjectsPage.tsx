// Projects (being built).
import { PageHeader } from '../../components/PageHeader';

export function ProjectsPage() {
  return <PageHeader title="Projects" />;
}
