// The API's resources as TypeScript types, read off the generated client's paths, so a page's
// fields are checked against what the server really sends.
import type { paths } from 'switchboard/client';

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: infer A }
    ? JsonOf<A>
    : R extends { 201: infer C }
      ? JsonOf<C>
      : never
  : never;
type One<P extends keyof paths> = Ok<P, 'get' & keyof paths[P]> extends { data: infer D } ? D : never;
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type Project = One<'/api/v1/projects/{id}'>;
export type Agent = One<'/api/v1/agents/{id}'>;
export type Workflow = One<'/api/v1/workflows/{id}'>;
export type Session = One<'/api/v1/sessions/{id}'>;
export type Call = One<'/api/v1/calls/{id}'>;
export type SipTrunk = One<'/api/v1/sip-trunks/{id}'>;
export type PhoneNumber = One<'/api/v1/phone-numbers/{id}'>;
export type DispatchRule = PhoneNumber['dispatch_rules'][number];
export type Conversation = One<'/api/v1/conversations/{id}'>;
export type Message = Conversation['messages'][number];
export type ConversationStep = Conversation['steps'][number];
export type WebhookEndpoint = One<'/api/v1/webhook-endpoints/{id}'>;
export type ApiKey = Ok<'/api/v1/api-keys', 'get'> extends { data: Array<infer K> } ? K : never;
export type WebhookDelivery =
  Ok<'/api/v1/webhook-endpoints/{id}/deliveries', 'get'> extends {
    data: Array<infer D>;
  }
    ? D
    : never;
export type Usage = Ok<'/api/v1/usage', 'get'> extends { data: infer U } ? U : never;
export type DispatchTestResult =
  Ok<'/api/v1/phone-numbers/{id}/dispatch-test', 'post'> extends {
    data: infer T;
  }
    ? T
    : never;

/** `links` and `meta` of every list (spec section 4). */
export interface Links {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}
export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  path: string;
  per_page: number;
  to: number | null;
  total: number;
}
export interface Page<T> {
  data: T[];
  links: Links;
  meta: PageMeta;
}
