// A page's title (the one h1), a line saying what the page is for, and its main actions.
import { useEffect, type ReactNode } from 'react';

export function PageHeader({
  title,
  description,
  actions,
  crumb,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  crumb?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Switchboard`;
  }, [title]);
  return (
    <header className="page-header">
      <div>
        {crumb && <div className="crumb">{crumb}</div>}
        <h1>{title}</h1>
        {description && <p className="page-description">{description}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

export function Section({
  title,
  children,
  actions,
  id,
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
  id?: string;
}) {
  return (
    <section className="card" aria-labelledby={id ? `${id}-title` : undefined}>
      <div className="card-header">
        <h2 id={id ? `${id}-title` : undefined}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}
