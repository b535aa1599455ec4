// A call's recording in the browser. The recording needs the signed-in key (a Bearer header), which
// an <audio src> cannot send, so it is fetched through the typed client and played from a blob URL
// (the CSP allows media from blob:); the same URL serves the download link.
import { useEffect, useState } from 'react';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';

export function RecordingPlayer({ callId }: { callId: string }) {
  const wav = useLoad(
    async () =>
      (await call(
        api.GET('/api/v1/calls/{id}/recording', { params: { path: { id: callId } }, parseAs: 'blob' }),
      )) as Blob,
    [callId],
  );
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!wav.data) return;
    const objectUrl = URL.createObjectURL(wav.data);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [wav.data]);

  if (wav.error) return <ErrorBanner error={wav.error} onRetry={wav.reload} />;
  if (!url) return <Loading />;
  return (
    <>
      <audio controls src={url} aria-label="Call recording" />
      <p className="muted">
        Left channel: the caller; right channel: the service.{' '}
        <a href={url} download={`call-${callId}.wav`}>
          Download (WAV)
        </a>
      </p>
    </>
  );
}
