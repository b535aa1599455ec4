// Who is signed in: the key in sessionStorage. A 401 from any call signs the tab out and sends
// it to the sign-in page, which says why.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { UNAUTHORIZED_EVENT } from '../api/client';
import { invalidateProjects } from '../api/projects';
import { forgetKey, readKey, storeKey } from './session-key';

interface Auth {
  key: string | null;
  /** Why the last session ended, for the sign-in page. */
  reason: 'revoked' | 'signed-out' | null;
  signIn: (key: string) => void;
  signOut: () => void;
}

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [key, setKey] = useState<string | null>(() => readKey());
  const [reason, setReason] = useState<Auth['reason']>(null);

  useEffect(() => {
    const onUnauthorized = () => {
      forgetKey();
      invalidateProjects();
      setKey(null);
      setReason('revoked');
    };
    window.addEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
  }, []);

  const signIn = useCallback((k: string) => {
    storeKey(k);
    // Another key may be another workspace: nothing read with the last one is shown.
    invalidateProjects();
    setKey(k.trim());
    setReason(null);
  }, []);
  const signOut = useCallback(() => {
    forgetKey();
    invalidateProjects();
    setKey(null);
    setReason('signed-out');
  }, []);
  const value = useMemo(() => ({ key, reason, signIn, signOut }), [key, reason, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
