/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Layout, StatusBadge, when, type Shell } from "../layout";
import { clock } from "../format";

/** A transcript's other versions: its translations (text) and its dubbings (media). */

export interface TranslationEntry {
  languageKey: string;
  translationId: string;
  targetLanguage: string;
  segmentCount: number;
  translationBackend: string;
  model: string;
  updatedAt: string;
  /** Made from an older revision of the transcript (docs/api.md "Stale outputs and regenerate"); null: unknown. */
  stale?: boolean | null;
  transcriptRevision?: number | null;
}
export interface DubbingEntry {
  dubbingId: string;
  status: string;
  languageKey: string;
  createdAt: string;
  stale?: boolean | null;
  transcriptRevision?: number | null;
}

/** Says so when an output was made from an older revision of the transcript. */
const StaleNote = (props: { stale?: boolean | null | undefined; revision?: number | null | undefined }) =>
  props.stale ? <strong class="stale"> · stale: made from revision {props.revision ?? "?"}</strong> : null;

/** The transcript page's section listing both, with links to their pages. */
export function Versions(props: { transcriptionId: string; translations: TranslationEntry[]; dubbings: DubbingEntry[] }) {
  return (
    <>
      <h2>Translations</h2>
      {props.translations.length === 0 ? (
        <p class="muted">No translation yet: submit a translation job for this transcript.</p>
      ) : (
        <ul>
          {props.translations.map((t) => (
            <li>
              <a href={`/console/transcripts/${props.transcriptionId}/translations/${encodeURIComponent(t.languageKey)}`}>
                {t.languageKey}
              </a>{" "}
              · {t.segmentCount} segments · {t.translationBackend} ({t.model}) · {when(t.updatedAt)} UTC
              <StaleNote stale={t.stale} revision={t.transcriptRevision} />
            </li>
          ))}
        </ul>
      )}
      <h2>Dubbed media</h2>
      {props.dubbings.length === 0 ? (
        <p class="muted">No dubbing yet.</p>
      ) : (
        <ul>
          {props.dubbings.map((d) => (
            <li>
              <a href={`/console/dubbings/${d.dubbingId}`}>{d.languageKey}</a> · <StatusBadge status={d.status} /> · {when(d.createdAt)} UTC
              <StaleNote stale={d.stale} revision={d.transcriptRevision} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export interface Translation {
  translationId: string;
  textSourceId: string;
  jobId: string;
  status: string;
  sourceLanguage: string;
  targetLanguage: string;
  languageKey: string;
  translationBackend: string;
  model: string;
  transcriptRevision: number;
  segments: Array<{ id: number | string; start: number; end: number; text: string; sourceText?: string }> | null;
}

export function TranslationPage(props: { shell: Shell; translation: Translation }) {
  const t = props.translation;
  return (
    <Layout title={`Translation ${t.sourceLanguage} → ${t.languageKey}`} nav="jobs" shell={props.shell}>
      <p>
        Of <a href={`/console/transcripts/${t.textSourceId}`}>{t.textSourceId}</a> (revision {t.transcriptRevision}) by{" "}
        {t.translationBackend} ({t.model}) · <StatusBadge status={t.status} />
      </p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">{t.sourceLanguage}</th>
              <th scope="col">{t.languageKey}</th>
            </tr>
          </thead>
          <tbody>
            {(t.segments ?? []).map((s) => (
              <tr>
                <td>
                  <a href={`/console/transcripts/${t.textSourceId}?t=${s.start}`}>{clock(s.start)}</a>
                </td>
                <td>{s.sourceText ?? ""}</td>
                <td lang={t.targetLanguage}>{s.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}

export interface Dubbing {
  dubbingId: string;
  transcriptionId: string;
  translationId: string;
  jobId: string;
  status: string;
  languageKey: string;
  artifacts?: Record<string, string> | null;
  speakers?: Array<{ label: string; status: string; voiceKind?: string; speechSec?: number; segmentCount?: number }>;
}

export function DubbingPage(props: { shell: Shell; dubbing: Dubbing }) {
  const d = props.dubbing;
  return (
    <Layout title={`Dubbing into ${d.languageKey}`} nav="jobs" shell={props.shell}>
      <p>
        Of <a href={`/console/transcripts/${d.transcriptionId}`}>{d.transcriptionId}</a> by job{" "}
        <a href={`/console/jobs/${d.jobId}`}>{d.jobId}</a> · <StatusBadge status={d.status} />
      </p>
      {d.artifacts?.["video"] ? (
        <video
          controls
          preload="metadata"
          src={`/console/media/dubbings/${d.dubbingId}/video`}
          class="dubbed"
          aria-label="Dubbed video"
        ></video>
      ) : (
        <p class="muted">No dubbed video (yet).</p>
      )}
      <h2>Speakers</h2>
      <ul>
        {(d.speakers ?? []).map((s) => (
          <li>
            {s.label}: {s.status}
            {s.voiceKind ? ` (${s.voiceKind})` : ""}
            {s.segmentCount !== undefined ? ` · ${s.segmentCount} segments` : ""}
          </li>
        ))}
      </ul>
    </Layout>
  );
}
