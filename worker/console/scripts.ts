/**
 * The console's few scripts, as text the Worker serves at /console/assets/<name>.js. A TS module
 * exporting the text needs no build step and no bundler rule, so it loads the same way in `wrangler dev`
 * and in the vitest workers pool. Every page works without them; they add the live parts only.
 * (Plain ES2020 for the browser; no template literals inside, so the text stays a plain String.raw.)
 */

/** The job page: re-fetches the server-rendered live panel (status, result, stage timeline) until the job ends. */
const JOB_LIVE = String.raw`
(function () {
  var box = document.getElementById("live");
  if (!box) return;
  var every = Number(box.getAttribute("data-every")) || 700;
  function terminal() {
    var s = box.querySelector("[data-terminal]");
    return s && s.getAttribute("data-terminal") === "true";
  }
  function tick() {
    if (terminal()) {
      var cancel = document.getElementById("cancel-form");
      if (cancel) cancel.hidden = true;
      return;
    }
    if (document.hidden) return void setTimeout(tick, every);
    fetch(box.getAttribute("data-src"), { credentials: "same-origin", headers: { accept: "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) box.innerHTML = html; })
      .catch(function () {})
      .then(function () { setTimeout(tick, every); });
  }
  setTimeout(tick, every);
})();
`;

/** The transcript page: highlight the segment being played, click to seek, edit a segment in place. */
const TRANSCRIPT = String.raw`
(function () {
  var list = document.querySelector("ol.segments");
  if (!list) return;
  var video = document.querySelector("video[data-player]");
  var items = Array.prototype.slice.call(list.querySelectorAll("li[data-start]"));
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.getAttribute("content") : "";
  var tid = list.getAttribute("data-transcription");
  var revision = Number(list.getAttribute("data-revision"));
  var revOut = document.getElementById("revision");
  var active = null;
  // The speaker forms post the revision the page shows: an in-place edit moves them on with it.
  function setRevision(n) {
    revision = n; list.setAttribute("data-revision", String(n)); if (revOut) revOut.textContent = String(n);
    document.querySelectorAll('form input[name="revision"]').forEach(function (input) { input.value = String(n); });
  }
  if (video) {
    video.addEventListener("timeupdate", function () {
      var t = video.currentTime, hit = null;
      for (var i = 0; i < items.length; i++) {
        if (t >= Number(items[i].getAttribute("data-start")) && t < Number(items[i].getAttribute("data-end"))) { hit = items[i]; break; }
      }
      if (hit === active) return;
      if (active) { active.classList.remove("active"); active.removeAttribute("aria-current"); }
      if (hit) { hit.classList.add("active"); hit.setAttribute("aria-current", "true"); hit.scrollIntoView({ block: "nearest" }); }
      active = hit;
    });
    var t0 = Number(new URLSearchParams(location.search).get("t"));
    if (t0 > 0) video.addEventListener("loadedmetadata", function () { video.currentTime = t0; }, { once: true });
  }
  function say(li, cls, text) {
    var out = li.querySelector(".seg-msg");
    if (!out) { out = document.createElement("p"); out.className = "seg-msg"; out.setAttribute("role", "status"); li.querySelector(".seg-tools").appendChild(out); }
    out.className = "seg-msg " + cls;
    out.textContent = text;
  }
  function closeEditor(li) {
    var f = li.querySelector("form.seg-edit");
    if (f) f.remove();
    li.querySelector("[data-action=edit]").hidden = false;
  }
  function openEditor(li) {
    var p = li.querySelector(".seg-text");
    var form = document.createElement("form");
    form.className = "seg-edit";
    var id = "edit-" + li.getAttribute("data-id");
    form.innerHTML = '<label for="' + id + '">Segment text</label><textarea id="' + id + '" rows="3"></textarea>' +
      '<div class="actions"><button type="submit">Save</button><button type="button" class="secondary" data-action="cancel">Cancel</button></div>';
    form.querySelector("textarea").value = p.textContent;
    li.querySelector("[data-action=edit]").hidden = true;
    li.querySelector(".seg-tools").appendChild(form);
    form.querySelector("textarea").focus();
    form.addEventListener("submit", function (ev) { ev.preventDefault(); save(li, form.querySelector("textarea").value); });
  }
  function save(li, text) {
    var segId = JSON.parse(li.getAttribute("data-id"));
    fetch("/v1/transcriptions/" + tid + "/segments", {
      method: "PATCH", credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ revision: revision, segments: [{ id: segId, text: text }] })
    }).then(function (r) { return r.json().then(function (b) { return { status: r.status, body: b }; }); }).then(function (res) {
      if (res.status === 200) {
        setRevision(res.body.data.revision);
        li.querySelector(".seg-text").textContent = text;
        closeEditor(li);
        say(li, "notice", "Saved: the transcript is now at revision " + res.body.data.revision + ".");
      } else if (res.status === 409) {
        return fetch("/v1/transcriptions/" + tid + "?layers=segments", { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (b) {
          var cur = b.data.segments.filter(function (s) { return JSON.stringify(s.id) === JSON.stringify(segId); })[0];
          var p = li.querySelector(".seg-text");
          if (cur) p.textContent = cur.text;
          setRevision(b.data.revision);
          say(li, "error", "Not saved: someone else changed this transcript (it is now at revision " + b.data.revision + "). " +
            "The current text is shown above; your text is still in the box: save again to replace it.");
        });
      } else {
        say(li, "error", "Not saved: " + ((res.body.error && res.body.error.message) || ("HTTP " + res.status)));
      }
    }).catch(function (e) { say(li, "error", "Not saved: " + e); });
  }
  list.addEventListener("click", function (ev) {
    var btn = ev.target.closest("button");
    if (!btn) return;
    var li = btn.closest("li");
    if (btn.classList.contains("seek")) {
      if (video) { video.currentTime = Number(li.getAttribute("data-start")); video.play().catch(function () {}); }
    } else if (btn.getAttribute("data-action") === "edit") openEditor(li);
    else if (btn.getAttribute("data-action") === "cancel") closeEditor(li);
  });
})();
`;

/** By file name; a Map, so a name from the URL (`constructor`, `__proto__`) is just unknown. */
export const CONSOLE_SCRIPTS: ReadonlyMap<string, string> = new Map([
  ["job-live.js", JOB_LIVE],
  ["transcript.js", TRANSCRIPT],
]);
