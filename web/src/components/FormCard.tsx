// A form in its own card under a heading: "New trunk", "Register a number", "Place a call". The
// heading names the form for assistive technology too, unless `formLabel` says otherwise.
import type { ReactNode } from 'react';
import { Form } from './Form';

export function FormCard({
  title,
  formLabel = title,
  submitLabel,
  busyLabel,
  onSubmit,
  onCancel,
  notice,
  children,
}: {
  title: string;
  formLabel?: string;
  submitLabel: string;
  busyLabel?: string;
  onSubmit: () => Promise<void>;
  onCancel?: () => void;
  /** Shown between the heading and the form (e.g. what to create first). */
  notice?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="card">
      <h2>{title}</h2>
      {notice}
      <Form
        label={formLabel}
        submitLabel={submitLabel}
        busyLabel={busyLabel}
        onSubmit={onSubmit}
        onCancel={onCancel}
      >
        {children}
      </Form>
    </div>
  );
}
