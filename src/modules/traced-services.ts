// With tracing on, every service method call is a span (`workflows.create`), the link between a
// request's span and the store's: route → service → store. Built once, when the services are; with
// tracing off the services are returned as they are, so a method call costs nothing extra.
import { inSpan, tracingEnabled } from '../shared/tracing.js';

export function tracedServices<S extends object>(services: S): S {
  if (!tracingEnabled()) return services;
  const out = {} as Record<string, unknown>;
  for (const [name, service] of Object.entries(services)) out[name] = tracedService(name, service as object);
  return out as S;
}

function tracedService<T extends object>(name: string, service: T): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(service, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'constructor') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const method = value as (...args: unknown[]) => unknown;
        const spanName = `${name}.${prop}`;
        // Called on the real service, so its private fields and `this` are its own.
        fn = (...args: unknown[]) =>
          inSpan(spanName, {}, () => method.apply(target, args), { onlyUnderParent: true });
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
