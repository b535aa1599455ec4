// The editor's header (the workflow's name, whether it is live, the draft's save state and error
// count; undo, redo, tidy up, validate and publish) and the banners under it: a draft that did not save, the
// outcome of a publish, a version shown read-only.
import { explain } from '../../../api/errors';
import { Badge } from '../../../components/Badge';
import { PageHeader } from '../../../components/PageHeader';
import type { EditHistoryControls } from './use-edit-history';
import type { DraftSaver, SaveStatus } from './use-draft-saver';

const SAVE_TEXT: Record<SaveStatus, string> = {
  saved: 'All changes saved',
  pending: 'Unsaved changes',
  saving: 'Saving…',
  error: 'Not saved',
};

export interface Notice {
  tone: 'good' | 'bad';
  text: string;
}

/** "Tidy up": the steps laid out by depth from the start (layout.ts). */
function TidyButton({ disabled, onClick }: { disabled: boolean; onClick: () => void }) {
  return (
    <button
      type="button"
      className="btn"
      onClick={onClick}
      disabled={disabled}
      title="Lay the steps out by depth from the start, without overlaps"
    >
      Tidy up
    </button>
  );
}

export function EditorHeader({
  name,
  published,
  saveStatus,
  errors,
  history,
  readOnly,
  busy,
  canTidy,
  onTidy,
  onValidate,
  onPublish,
}: {
  name: string;
  published: number | null;
  saveStatus: SaveStatus;
  /** Findings that are errors (warnings aside). */
  errors: number;
  history: EditHistoryControls;
  /** A version is on the canvas. */
  readOnly: boolean;
  /** A publish is under way. */
  busy: boolean;
  /** There are steps to lay out. */
  canTidy: boolean;
  onTidy: () => void;
  onValidate: () => void;
  onPublish: () => void;
}) {
  return (
    <PageHeader
      title={name}
      crumb="Workflows"
      description={
        <span className="editor-status">
          {published ? <Badge value={`live: v${published}`} tone="good" /> : <Badge value="not published" />}
          <span className={`save-state save-${saveStatus}`} role="status" data-save-status={saveStatus}>
            {SAVE_TEXT[saveStatus]}
          </span>
          {errors > 0 && <Badge value={`${errors} error${errors > 1 ? 's' : ''}`} tone="bad" />}
        </span>
      }
      actions={
        <>
          <span className="btn-group" role="group" aria-label="History">
            <button
              type="button"
              className="btn"
              onClick={history.undo}
              disabled={readOnly || !history.canUndo}
              aria-keyshortcuts="Control+Z"
              title="Undo (Ctrl+Z)"
            >
              Undo
            </button>
            <button
              type="button"
              className="btn"
              onClick={history.redo}
              disabled={readOnly || !history.canRedo}
              aria-keyshortcuts="Control+Shift+Z"
              title="Redo (Ctrl+Shift+Z)"
            >
              Redo
            </button>
          </span>
          <TidyButton disabled={readOnly || !canTidy} onClick={onTidy} />
          <button type="button" className="btn" onClick={onValidate} disabled={readOnly}>
            Validate
          </button>
          <button type="button" className="btn btn-primary" onClick={onPublish} disabled={busy || readOnly}>
            {busy ? 'Publishing…' : 'Publish'}
          </button>
        </>
      }
    />
  );
}

export function EditorBanners({
  saver,
  notice,
  viewing,
  onBackToDraft,
}: {
  saver: DraftSaver;
  notice: Notice | null;
  /** The version shown read-only, if one is. */
  viewing: number | null;
  onBackToDraft: () => void;
}) {
  return (
    <>
      {saver.status === 'error' && saver.error && (
        <div className="banner banner-error" role="alert">
          The draft was not saved: {saver.error.status === 422 ? saver.error.message : explain(saver.error)}{' '}
          {saver.error.status !== 429 && (
            <button type="button" className="btn btn-small" onClick={() => void saver.flush()}>
              Retry
            </button>
          )}
        </div>
      )}
      {notice && (
        <div
          className={`banner ${notice.tone === 'good' ? 'banner-info' : 'banner-error'}`}
          role={notice.tone === 'bad' ? 'alert' : 'status'}
        >
          {notice.text}
        </div>
      )}
      {viewing !== null && (
        <div className="banner banner-warn" role="status">
          Viewing version {viewing}, read-only.{' '}
          <button type="button" className="btn btn-small" onClick={onBackToDraft}>
            Back to the draft
          </button>
        </div>
      )}
    </>
  );
}
