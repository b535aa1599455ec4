// The editor's side panel: its tabs (step, simulate, versions, talk) and the one that is open.
import type { ReactNode, RefObject } from 'react';

export type Tab = 'step' | 'simulate' | 'versions' | 'talk';

const TABS: { id: Tab; label: string }[] = [
  { id: 'step', label: 'Step' },
  { id: 'simulate', label: 'Simulate' },
  { id: 'versions', label: 'Versions' },
  { id: 'talk', label: 'Talk to it' },
];

export function SidePanel({
  tab,
  onTab,
  panelRef,
  children,
}: {
  tab: Tab;
  onTab: (tab: Tab) => void;
  /** The open panel's scroll box (focus moves there when a step is added from the keyboard). */
  panelRef: RefObject<HTMLDivElement | null>;
  /** The open tab's panel. */
  children: ReactNode;
}) {
  return (
    <aside className="side-panel" aria-label="Editor panel">
      <div className="tabs" role="group" aria-label="Panels">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            className={`tab ${tab === t.id ? 'tab-active' : ''}`}
            aria-pressed={tab === t.id}
            onClick={() => onTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div className="panel-scroll" ref={panelRef} tabIndex={-1}>
        {children}
      </div>
    </aside>
  );
}
