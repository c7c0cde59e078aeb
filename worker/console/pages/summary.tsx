/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Layout, StatusBadge, when, type Shell } from "../layout";

/** A summarization's record (GET /v1/summarizations/{id}) as a page: the drafts a person publishes from. */

export interface Summary {
  summarizationId: string;
  jobId: string;
  textSourceId: string;
  status: string;
  shortSynopsis: string | null;
  longSynopsis: string | null;
  seoDescriptions: string[] | null;
  socialHooks: string[] | null;
  keywords: string[] | null;
  classification: Array<{ id: string; name: string; confidence: number }> | null;
  generated: { engine: string; model: string; kind: string } | null;
  updatedAt: string;
}

function List({ title, items }: { title: string; items: string[] | null }) {
  if (!items || items.length === 0) return null;
  return (
    <>
      <h2>{title}</h2>
      <ol>
        {items.map((i) => (
          <li>{i}</li>
        ))}
      </ol>
    </>
  );
}

export function SummaryPage({ shell, summary: s }: { shell: Shell; summary: Summary }) {
  return (
    <Layout title={`Summary ${s.summarizationId}`} nav="jobs" shell={shell}>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={s.status} />
        </dd>
        <dt>Transcript</dt>
        <dd>
          <a href={`/console/transcripts/${s.textSourceId}`}>{s.textSourceId}</a>
        </dd>
        <dt>Job</dt>
        <dd>
          <a href={`/console/jobs/${s.jobId}`}>{s.jobId}</a> · updated {when(s.updatedAt)} UTC
        </dd>
        {s.generated ? (
          <>
            <dt>Made by</dt>
            <dd>
              {s.generated.engine} ({s.generated.model}, {s.generated.kind})
            </dd>
          </>
        ) : null}
      </dl>
      {s.shortSynopsis ? (
        <>
          <h2>Short synopsis</h2>
          <p>{s.shortSynopsis}</p>
        </>
      ) : (
        <p class="muted">No summary yet: the job has not completed.</p>
      )}
      {s.longSynopsis ? (
        <>
          <h2>Long synopsis</h2>
          <p>{s.longSynopsis}</p>
        </>
      ) : null}
      <List title="SEO descriptions" items={s.seoDescriptions} />
      <List title="Social hooks" items={s.socialHooks} />
      <List title="Keywords" items={s.keywords} />
      <List
        title="Categories (IAB)"
        items={s.classification?.map((c) => `${c.name} (${c.id}) · ${Math.round(c.confidence * 100)} %`) ?? null}
      />
    </Layout>
  );
}
