// The platform's webhook event types, with what each means, for the endpoint forms.
export const EVENT_TYPES = [
  { value: 'call.started', label: 'call.started' },
  { value: 'call.ended', label: 'call.ended' },
  { value: 'session.ended', label: 'session.ended' },
  { value: 'workflow.completed', label: 'workflow.completed' },
  { value: 'workflow.failed', label: 'workflow.failed' },
];
