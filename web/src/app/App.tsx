// Routing. Each page is a component under pages/; the workflow editor is loaded on demand (its own
// chunk), so the first load stays small. Signed out, every path shows the sign-in page, and the
// path is kept, so signing in lands where the link pointed.
import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { api, call } from '../api/client';
import { AuthProvider, useAuth } from '../auth/AuthContext';
import { SignInPage } from '../auth/SignInPage';
import { Loading } from '../components/ErrorBanner';
import { Layout } from './Layout';
import { OverviewPage } from '../pages/overview/OverviewPage';
import { ProjectsPage } from '../pages/projects/ProjectsPage';
import { WorkflowsPage } from '../pages/workflows/WorkflowsPage';
import { AgentsPage } from '../pages/agents/AgentsPage';
import { AgentPage } from '../pages/agents/AgentPage';
import { TrunksPage } from '../pages/telephony/TrunksPage';
import { TrunkPage } from '../pages/telephony/TrunkPage';
import { NumbersPage } from '../pages/telephony/NumbersPage';
import { NumberPage } from '../pages/telephony/NumberPage';
import { CallsPage } from '../pages/calls/CallsPage';
import { CallPage } from '../pages/calls/CallPage';
import { SessionsPage } from '../pages/sessions/SessionsPage';
import { SessionPage } from '../pages/sessions/SessionPage';
import { ConversationsPage } from '../pages/conversations/ConversationsPage';
import { ConversationPage } from '../pages/conversations/ConversationPage';
import { WebhooksPage } from '../pages/webhooks/WebhooksPage';
import { EndpointPage } from '../pages/webhooks/EndpointPage';
import { ApiKeysPage } from '../pages/api-keys/ApiKeysPage';
import { UsagePage } from '../pages/usage/UsagePage';
import { NotFoundPage } from '../pages/NotFoundPage';

const WorkflowEditorPage = lazy(() => import('../pages/workflows/editor/WorkflowEditorPage'));

/** A key is good when a read with it succeeds (projects: the smallest read every key may make). */
async function checkKey(key: string): Promise<void> {
  await call(
    api.GET('/api/v1/projects', {
      params: { query: { per_page: 1 } },
      headers: { Authorization: `Bearer ${key}` },
    }),
  );
}

function SignedInRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<OverviewPage />} />
        <Route path="projects" element={<ProjectsPage />} />
        <Route path="workflows" element={<WorkflowsPage />} />
        <Route
          path="workflows/:id"
          element={
            <Suspense fallback={<Loading label="Loading the editor…" />}>
              <WorkflowEditorPage />
            </Suspense>
          }
        />
        <Route path="agents" element={<AgentsPage />} />
        <Route path="agents/:id" element={<AgentPage />} />
        <Route path="telephony" element={<Navigate to="/telephony/trunks" replace />} />
        <Route path="telephony/trunks" element={<TrunksPage />} />
        <Route path="telephony/trunks/:id" element={<TrunkPage />} />
        <Route path="telephony/numbers" element={<NumbersPage />} />
        <Route path="telephony/numbers/:id" element={<NumberPage />} />
        <Route path="calls" element={<CallsPage />} />
        <Route path="calls/:id" element={<CallPage />} />
        <Route path="sessions" element={<SessionsPage />} />
        <Route path="sessions/:id" element={<SessionPage />} />
        <Route path="conversations" element={<ConversationsPage />} />
        <Route path="conversations/:id" element={<ConversationPage />} />
        <Route path="webhooks" element={<WebhooksPage />} />
        <Route path="webhooks/:id" element={<EndpointPage />} />
        <Route path="api-keys" element={<ApiKeysPage />} />
        <Route path="usage" element={<UsagePage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

function Gate() {
  const { key } = useAuth();
  return key ? <SignedInRoutes /> : <SignInPage check={checkKey} />;
}

export function App() {
  return (
    <BrowserRouter>
      <AuthProvider>
        <Gate />
      </AuthProvider>
    </BrowserRouter>
  );
}
