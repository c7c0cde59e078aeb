/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { raw } from "hono/html";
import { speakerDisplayName } from "../../../contracts/speakers";
import type { Speaker } from "../../../contracts/transcript";
import { clock, minutesSeconds } from "../format";
import { Csrf } from "../layout";
import { speakerClass } from "../speaker-colours";

/**
 * The transcript page's speaker parts: the panel (each speaker's colour, name, speaking time and
 * segments, a rename form each, a merge form), the name on each segment row, and the form that moves
 * a segment to another speaker. Every form posts to the console, which sends it to the transcript's
 * speakers or segments route with the revision the page was rendered at.
 */

/** What a speaker form needs: where to post, the revision it applies to, the session's token. */
export interface SpeakerForms {
  transcriptionId: string;
  revision: number;
  csrf: string;
}

const base = (f: SpeakerForms) => `/console/transcripts/${encodeURIComponent(f.transcriptionId)}`;

/** The hidden fields every speaker form carries; the page's script keeps `revision` current after an in-place edit. */
const Hidden = ({ forms }: { forms: SpeakerForms }) => (
  <>
    <Csrf token={forms.csrf} />
    <input type="hidden" name="revision" value={String(forms.revision)} />
  </>
);

/** A square of the speaker's colour; decorative, since the name always goes with it. */
const Swatch = () => <span class="swatch" aria-hidden="true"></span>;

export function SpeakersPanel(props: { speakers: readonly Speaker[]; forms: SpeakerForms | null }) {
  const { speakers, forms } = props;
  return (
    <section aria-labelledby="speakers-h" id="speakers">
      <h2 id="speakers-h">Speakers ({speakers.length})</h2>
      <div class="table-wrap">
        <table class="speakers">
          <thead>
            <tr>
              <th scope="col">Speaker</th>
              <th scope="col">Label</th>
              <th scope="col">Speaking time</th>
              <th scope="col">Segments</th>
              {forms ? <th scope="col">Name</th> : null}
            </tr>
          </thead>
          <tbody>
            {speakers.map((s) => (
              <tr data-speaker={s.label}>
                <td>
                  <span class={`speaker-name ${speakerClass(s.label)}`}>
                    <Swatch />
                    {s.name ?? s.label}
                  </span>
                </td>
                <td>
                  <code>{s.label}</code>
                </td>
                <td>{minutesSeconds(s.speakingSec)}</td>
                <td>{s.segmentCount}</td>
                {forms ? (
                  <td>
                    <form method="post" action={`${base(forms)}/speakers/rename`} class="inline-form">
                      <Hidden forms={forms} />
                      <input type="hidden" name="label" value={s.label} />
                      <label for={`name-${s.label}`} class="visually-hidden">{`Name for ${s.label}`}</label>
                      <input id={`name-${s.label}`} name="name" type="text" value={s.name ?? ""} maxlength={100} placeholder={s.label} />
                      <button type="submit" class="secondary" aria-label={`Save the name of ${s.label}`}>
                        Save
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {forms ? <p class="muted">A name shows wherever the transcript is read from now on; an empty name goes back to the label.</p> : null}
      {forms && speakers.length >= 2 ? <MergeForm speakers={speakers} forms={forms} /> : null}
    </section>
  );
}

function MergeForm(props: { speakers: readonly Speaker[]; forms: SpeakerForms }) {
  const { speakers, forms } = props;
  const option = (s: Speaker, selected: boolean) => (
    <option value={s.label} selected={selected}>
      {s.name ? `${s.name} (${s.label})` : s.label}
    </option>
  );
  return (
    <form method="post" action={`${base(forms)}/speakers/merge`} aria-labelledby="merge-h">
      <h3 id="merge-h">Merge two speakers</h3>
      <p class="muted">Every segment of the first becomes the second's, and the first leaves the list.</p>
      <Hidden forms={forms} />
      <div class="grid">
        <div>
          <label for="merge-from">Merge</label>
          <select id="merge-from" name="from">
            {speakers.map((s, i) => option(s, i === 1))}
          </select>
        </div>
        <div>
          <label for="merge-into">into</label>
          <select id="merge-into" name="into">
            {speakers.map((s, i) => option(s, i === 0))}
          </select>
        </div>
      </div>
      <p>
        <button type="submit">Merge the speakers</button>
      </p>
    </form>
  );
}

/** A segment row's speaker: the name (or label) in the speaker's colour. */
export function SegmentSpeaker(props: { label: string; speakers: readonly Speaker[] }) {
  return (
    <p class={`seg-speaker ${speakerClass(props.label)}`}>
      <Swatch />
      {speakerDisplayName(props.label, props.speakers)}
    </p>
  );
}

/** The next label no speaker has, for a segment the diarization gave to the wrong one of too few speakers; null past SPEAKER_99. */
function newLabel(speakers: readonly Speaker[]): string | null {
  const next = Math.max(-1, ...speakers.map((s) => Number(s.label.slice("SPEAKER_".length)))) + 1;
  return next > 99 ? null : `SPEAKER_${String(next).padStart(2, "0")}`;
}

/**
 * The form that moves one segment (and its words) to another speaker, or to a new one, for each
 * segment row. Its hidden fields and option lists are the same on every row but for the option
 * selected, so they are rendered once per page (one list per speaker) and reused as escaped HTML:
 * a long transcript has a form per segment, and rendering each list again cost a 1000-segment page
 * five times the CPU of the page without speakers.
 */
export function moveSegmentForms(speakers: readonly Speaker[], forms: SpeakerForms) {
  const fresh = newLabel(speakers);
  const hidden = raw(String(<Hidden forms={forms} />));
  const options = new Map(
    speakers.map((current) => [
      current.label,
      raw(
        String(
          <>
            {speakers.map((s) => (
              <option value={s.label} selected={s.label === current.label}>
                {speakerDisplayName(s.label, speakers)}
              </option>
            ))}
            {fresh ? <option value={fresh}>{`A new speaker (${fresh})`}</option> : null}
          </>,
        ),
      ),
    ]),
  );
  return function MoveSegment(segment: { id: number; start: number; speaker: string }) {
    const id = `move-${segment.id}`;
    return (
      <form method="post" action={`${base(forms)}/segments/${segment.id}/speaker`} class="inline-form seg-move">
        {hidden}
        <label for={id} class="visually-hidden">{`Speaker of the segment at ${clock(segment.start)}`}</label>
        <select id={id} name="speaker">
          {options.get(segment.speaker) ?? null}
        </select>
        <button type="submit" class="secondary" aria-label={`Move the segment at ${clock(segment.start)} to this speaker`}>
          Move
        </button>
      </form>
    );
  };
}
