/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Layout, type Shell } from "../layout";
import { clock } from "../format";

export interface Clip {
  index: number;
  start: number;
  end: number;
  durationSec: number;
  title: string;
  score: number;
  text: string;
  videoKey: string;
  posterKey: string;
  width: number;
  height: number;
}
export interface ClipGeneration {
  clipGenerationId: string;
  jobId: string;
  textSourceId: string;
  status: string;
  layout?: string;
  category?: string;
  clips?: Clip[];
}

export function ClipsPage(props: { shell: Shell; gen: ClipGeneration }) {
  const g = props.gen;
  return (
    <Layout title={`Clips ${g.clipGenerationId}`} nav="jobs" shell={props.shell}>
      <p>
        From <a href={`/console/transcripts/${g.textSourceId}`}>{g.textSourceId}</a> by job{" "}
        <a href={`/console/jobs/${g.jobId}`}>{g.jobId}</a> · {g.status}
        {g.layout ? ` · layout ${g.layout}` : ""}
        {g.category ? ` · ${g.category}` : ""}
      </p>
      <div class="cards">
        {(g.clips ?? []).map((c) => {
          const base = `/console/media/clips/${g.clipGenerationId}/${c.index}`;
          return (
            <article class="card" aria-labelledby={`clip-${c.index}`}>
              <h2 id={`clip-${c.index}`}>
                {c.index + 1}. {c.title}
              </h2>
              <video
                controls
                preload="none"
                poster={`${base}/poster`}
                src={`${base}/video`}
                width={c.width}
                height={c.height}
                class="clip"
                data-clip={String(c.index)}
              ></video>
              <p class="muted">
                {clock(c.start)}–{clock(c.end)} of the source · {c.durationSec.toFixed(1)} s · score {c.score.toFixed(2)}
              </p>
              <p>{c.text}</p>
            </article>
          );
        })}
      </div>
    </Layout>
  );
}
