/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { SearchHit } from "../../../contracts/catalog";
import { Layout, type Shell } from "../layout";
import { clock } from "../format";

export type { SearchHit };

export function CatalogPage(props: {
  shell: Shell;
  query: string;
  hits: SearchHit[] | null;
  warnings: string[];
  error?: string | undefined;
  notice?: string | undefined;
}) {
  return (
    <Layout title="Catalog search" nav="catalog" shell={props.shell} error={props.error} notice={props.notice}>
      <form method="get" action="/console/catalog" role="search">
        <label for="q">Search the project's indexed transcripts</label>
        <input id="q" name="q" type="search" required value={props.query} />
        <p>
          <button type="submit">Search</button>
        </p>
      </form>
      {props.warnings.map((w) => (
        <p class="muted">{w}</p>
      ))}
      {props.hits === null ? null : props.hits.length === 0 ? (
        <p>No passage matches.</p>
      ) : (
        <ol class="segments">
          {props.hits.map((h) => (
            <li>
              <a
                class="button secondary seek"
                href={`/console/transcripts/${h.textSourceId}?t=${h.start}`}
                aria-label={`Play ${h.textSourceId} from ${clock(h.start)}`}
              >
                ▶ {clock(h.start)}
              </a>
              <p class="seg-text">
                {h.text} <span class="muted">({h.textSourceId})</span>
              </p>
            </li>
          ))}
        </ol>
      )}
    </Layout>
  );
}
