import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors';
import { TextField } from './fields';
import { Form } from './Form';

function Harness({ fail }: { fail: () => ApiError | null }) {
  const [name, setName] = useState('');
  const [uri, setUri] = useState('');
  const [saved, setSaved] = useState(false);
  return (
    <>
      <Form
        label="Trunk"
        submitLabel="Save"
        onSubmit={async () => {
          const err = fail();
          if (err) throw err;
          setSaved(true);
        }}
      >
        <TextField name="name" label="Name" value={name} onChange={setName} />
        <TextField name="termination_uri" label="Termination URI" value={uri} onChange={setUri} />
      </Form>
      {saved && <p>saved</p>}
    </>
  );
}

describe('Form', () => {
  it("shows a 422's errors beside the fields they name, marks them invalid, and keeps what was typed", async () => {
    const user = userEvent.setup({ delay: null });
    const error = new ApiError(422, 'termination_uri: must be a sip: URI', {
      termination_uri: ['must be a sip: URI'],
      allowed_ips: ['is not a CIDR'],
    });
    render(<Harness fail={() => error} />);
    await user.type(screen.getByLabelText('Name'), 'Carrier');
    await user.type(screen.getByLabelText('Termination URI'), 'http://nope');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    // The refusal arrives after a promise settles: wait for it rather than read the DOM at once.
    const field = screen.getByLabelText('Termination URI');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    const describedBy = field.getAttribute('aria-describedby')!;
    expect(document.getElementById(describedBy.split(' ').pop()!)?.textContent).toBe('must be a sip: URI');
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBeNull();
    // An error no field on screen names goes to the banner, with its field.
    expect(screen.getByRole('alert').textContent).toContain('allowed_ips: is not a CIDR');
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('Carrier');
    expect((field as HTMLInputElement).value).toBe('http://nope');
  });

  it('explains a 403 by the scope the key lacks, and a 429 by the wait', async () => {
    const user = userEvent.setup({ delay: null });
    let next: ApiError | null = new ApiError(403, 'This action needs an API key with the "telephony" scope.');
    render(<Harness fail={() => next} />);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toContain('This key lacks the "telephony" scope');
    next = new ApiError(429, 'Too many requests.', {}, 17);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('Try again in 17 s'));
    next = null;
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('saved')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
