/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { ActionsHeader, Csrf, Layout, PostButton, StatusBadge, when, type Shell } from "../layout";
import type { TranscriptRecord } from "../../../sdk/client/types";
import { Versions, type DubbingEntry, type TranslationEntry } from "./versions";
import { clock } from "../format";
import { TranscriptDownloads } from "./transcript-downloads";
import { moveSegmentForms, SegmentSpeaker, SpeakersPanel, type SpeakerForms } from "./speakers";

/** The transcript record as the API answers it (sdk/client/types.ts), its speaker list included (empty when not diarized). */
export type Transcript = TranscriptRecord;
export interface GlossaryTerm {
  termId: string;
  term: string;
  preferred: string;
}

export function TranscriptPage(props: {
  shell: Shell;
  transcript: Transcript;
  glossary: GlossaryTerm[];
  versions: { translations: TranslationEntry[]; dubbings: DubbingEntry[] };
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const t = props.transcript;
  const segments = t.segments ?? [];
  const csrf = props.shell.session.csrfToken;
  const glossaryAction = `/console/transcripts/${t.transcriptionId}/glossary`;
  // Speaker controls only where there are speakers, and forms only where the API would take an edit.
  const speakers = t.speakers ?? [];
  const speakerForms: SpeakerForms | null =
    speakers.length > 0 && t.status === "completed" ? { transcriptionId: t.transcriptionId, revision: t.revision, csrf } : null;
  const moveSegment = speakerForms ? moveSegmentForms(speakers, speakerForms) : null;
  return (
    <Layout
      title={`Transcript ${t.transcriptionId}`}
      nav="jobs"
      shell={props.shell}
      scripts={["transcript.js"]}
      notice={props.notice}
      error={props.error}
    >
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={t.status} />
        </dd>
        <dt>Revision</dt>
        <dd id="revision" aria-live="polite">
          {t.revision}
        </dd>
        <dt>Source</dt>
        <dd>{t.source ? <code>{`s3://${t.source.bucket}/${t.source.sourceKey}`}</code> : "a presigned URL"}</dd>
        <dt>Language · duration</dt>
        <dd>
          {t.language ?? "—"} · {t.durationSec !== null ? clock(t.durationSec) : "—"}
        </dd>
        <dt>Engine</dt>
        <dd>
          {t.engine ?? "—"} {t.model ? `(${t.model})` : ""}
        </dd>
        <dt>Job</dt>
        <dd>
          <a href={`/console/jobs/${t.jobId}`}>{t.jobId}</a> · updated {when(t.updatedAt)} UTC
        </dd>
        <dt>Redaction</dt>
        <dd id="redaction">
          {t.redaction
            ? `${t.redaction.entities.length} redacted (${
                Object.entries(t.redaction.counts)
                  .map(([type, n]) => `${type} ${n}`)
                  .join(", ") || "nothing found"
              }) by ${t.redaction.engine}`
            : "not redacted"}
        </dd>
        <dt>Files in the bucket</dt>
        <dd id="files-revision">
          {t.outputKeysStale
            ? `stale: they hold revision ${t.outputKeysRevision ?? "?"}; regenerate them to carry the edits`
            : t.outputKeys
              ? "up to date"
              : "none"}
        </dd>
      </dl>
      <TranscriptDownloads transcriptionId={t.transcriptionId} status={t.status} />
      <div class="player">
        <div>
          <video
            data-player
            controls
            preload="metadata"
            src={`/console/media/transcripts/${t.transcriptionId}`}
            aria-label="Source recording"
          ></video>
          <p class="muted">Click a time to play from there. The segment being played is highlighted.</p>
        </div>
        <section aria-labelledby="seg-h">
          <h2 id="seg-h">Segments ({segments.length})</h2>
          {segments.length === 0 ? <p class="muted">No segments (the transcript is {t.status}).</p> : null}
          <ol class="segments" data-transcription={t.transcriptionId} data-revision={String(t.revision)}>
            {segments.map((s) => (
              <li data-id={JSON.stringify(s.id)} data-start={String(s.start)} data-end={String(s.end)}>
                <button type="button" class="seek" aria-label={`Play from ${clock(s.start)}`}>
                  {clock(s.start)}
                </button>
                {s.speaker !== undefined && speakers.length > 0 ? <SegmentSpeaker label={s.speaker} speakers={speakers} /> : null}
                <p class="seg-text">{s.text}</p>
                <div class="seg-tools">
                  {t.status === "completed" ? (
                    <button type="button" class="secondary" data-action="edit" aria-label={`Edit the segment at ${clock(s.start)}`}>
                      Edit
                    </button>
                  ) : null}
                  {moveSegment && s.speaker !== undefined ? moveSegment({ id: s.id, start: s.start, speaker: s.speaker }) : null}
                </div>
              </li>
            ))}
          </ol>
        </section>
      </div>
      {speakers.length > 0 ? <SpeakersPanel speakers={speakers} forms={speakerForms} /> : null}
      <h2>Glossary</h2>
      {props.glossary.length === 0 ? (
        <p class="muted">The project glossary is empty.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Term</th>
                <th scope="col">Written as</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {props.glossary.map((g) => (
                <tr>
                  <td>{g.term}</td>
                  <td>{g.preferred}</td>
                  <td>
                    <PostButton
                      action={`${glossaryAction}/${g.termId}/delete`}
                      csrf={csrf}
                      label="Remove"
                      name={`Remove the term ${g.term}`}
                      danger
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form method="post" action={glossaryAction} aria-labelledby="glossary-add">
        <h3 id="glossary-add">Add a term</h3>
        <p class="muted">The project's transcripts get a rebuilt glossary layer at once; your edits to the current segments are kept.</p>
        <Csrf token={csrf} />
        <label for="glossary-term">Heard as</label>
        <input id="glossary-term" name="term" type="text" required maxlength={200} />
        <label for="glossary-preferred">Written as</label>
        <input id="glossary-preferred" name="preferred" type="text" required maxlength={200} />
        <p>
          <button type="submit">Add the term</button>
        </p>
      </form>
      <Versions transcriptionId={t.transcriptionId} translations={props.versions.translations} dubbings={props.versions.dubbings} />
      {t.thumbnails && t.thumbnails.length > 0 ? (
        <>
          <h2>Thumbnails</h2>
          <div class="cards">
            {t.thumbnails.map((th) => (
              <figure class="card">
                <img
                  src={`/console/media/thumbnails/${t.transcriptionId}/${encodeURIComponent(th.thumbnailId)}`}
                  width={th.width}
                  height={th.height}
                  alt={`${th.kind} thumbnail`}
                  loading="lazy"
                />
                <figcaption>
                  {th.kind}
                  {th.frameTimeSec !== null ? ` at ${clock(th.frameTimeSec)}` : ""}
                </figcaption>
              </figure>
            ))}
          </div>
        </>
      ) : null}
      {t.metadata ? (
        <>
          <h2>Metadata</h2>
          <pre>{JSON.stringify(t.metadata, null, 2)}</pre>
        </>
      ) : null}
      <h2>Delete</h2>
      <p>
        Deletes the transcript with its translations, metadata, summaries, clips, thumbnails, dubbings, index entries and the jobs that made
        them. Recorded in the audit log.
      </p>
      <form method="post" action={`/console/transcripts/${t.transcriptionId}/delete`}>
        <Csrf token={props.shell.session.csrfToken} />
        <p>
          <input id="delete-outputs" name="deleteOutputs" type="checkbox" value="true" />{" "}
          <label for="delete-outputs">Also delete the files the service wrote into the bucket</label>
        </p>
        <p>
          <button type="submit" class="danger" aria-label={`Delete transcript ${t.transcriptionId}`}>
            Delete the transcript
          </button>
        </p>
      </form>
    </Layout>
  );
}
