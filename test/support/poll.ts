// Waiting on a real peer or the store in an end-to-end test: no bound of its own, the test's
// timeout bounds it.

/** Retries `check` until it stops throwing; its value. */
export async function untilPasses<T>(check: () => Promise<T> | T): Promise<T> {
  for (;;) {
    try {
      return await check();
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
