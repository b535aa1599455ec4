// Re-reads a page's data every few seconds while something is live (a ringing call, a running
// session), and stops once it has ended or the page is left.
import { useEffect } from 'react';

export function usePolling(active: boolean, reload: () => void, everyMs = 2000): void {
  useEffect(() => {
    if (!active) return;
    const timer = window.setInterval(reload, everyMs);
    return () => window.clearInterval(timer);
  }, [active, reload, everyMs]);
}
