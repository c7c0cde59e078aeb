import { SPEAKER_CSS } from "./speaker-colours";

/**
 * The console's one stylesheet, served by the Worker at /console/assets/console.css (no CDN, no web
 * fonts). Text colours have ≥ 4.5:1 contrast on their backgrounds; the focus ring is a dark outline inside
 * a yellow halo, so it shows on the white page and on the dark header alike; the layout stacks on a phone.
 */
export const CONSOLE_CSS = `
:root{--fg:#1b1b1f;--muted:#4a4f57;--bg:#fff;--panel:#f4f5f7;--line:#c9ccd1;--accent:#0b57d0;--accent-fg:#fff;--danger:#a11a1a;--ok:#17612a;--warn:#7a4b00;--focus:#ffbf47}
*{box-sizing:border-box}
html{font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--fg);outline-offset:2px;box-shadow:0 0 0 6px var(--focus)}
.skip{position:absolute;left:-999px;top:0;background:var(--fg);color:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.6rem 1rem;background:#10213f;color:#fff}
header.top a{color:#fff}
header.top .brand{font-weight:700;text-decoration:none;margin-right:.5rem}
nav.main ul{display:flex;flex-wrap:wrap;gap:.25rem .9rem;list-style:none;margin:0;padding:0}
nav.main a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
header.top form{display:flex;gap:.4rem;align-items:center;margin:0}
header.top .who{margin-left:auto;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
header.top select,header.top button{font-size:.9rem}
header.top label{color:#fff;margin:0;font-weight:400}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.4rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .6rem}
label{display:block;font-weight:600;margin:.6rem 0 .2rem}
input,select,textarea,button{font:inherit}
input[type=text],input[type=email],input[type=password],input[type=search],input[type=number],input[type=url],select,textarea{width:100%;max-width:34rem;padding:.45rem .55rem;border:1px solid #767b84;border-radius:4px;background:#fff;color:var(--fg)}
textarea{min-height:8rem;font-family:ui-monospace,monospace;font-size:.9rem}
button,.button{display:inline-block;padding:.45rem .9rem;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:var(--accent-fg);cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger)}
button:disabled{opacity:.6;cursor:not-allowed}
fieldset{border:1px solid var(--line);border-radius:6px;margin:.6rem 0;padding:.4rem .8rem .8rem}
fieldset.inline label{display:inline-flex;gap:.3rem;font-weight:400;margin:.2rem .8rem .2rem 0}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:0 1rem}
.notice{border-left:4px solid var(--ok);background:#eaf5ec;padding:.6rem .8rem;margin:.8rem 0}
.error{border-left:4px solid var(--danger);background:#fbeaea;padding:.6rem .8rem;margin:.8rem 0}
.secret{font-family:ui-monospace,monospace;word-break:break-all;background:#fff6d6;padding:.5rem;border:1px solid #c9a227}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
caption{text-align:left}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel)}
code,pre{font-family:ui-monospace,monospace;font-size:.88rem}
pre{background:var(--panel);padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
.muted{color:var(--muted)}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-size:.85rem;font-weight:600;border:1px solid currentColor}
.s-completed{color:var(--ok)}.s-failed,.s-cancelled{color:var(--danger)}.s-processing,.s-cancelling,.s-running{color:var(--warn)}.s-pending,.s-queued,.s-waiting,.s-skipped{color:var(--muted)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;word-break:break-word}
ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}
ol.timeline li{padding:.35rem .8rem;position:relative}
ol.timeline li::before{content:"";position:absolute;left:-.5rem;top:.75rem;width:.7rem;height:.7rem;border-radius:50%;background:var(--line)}
ol.timeline li.e-completed::before{background:var(--ok)}ol.timeline li.e-failed::before{background:var(--danger)}ol.timeline li.e-started::before{background:var(--warn)}
.pager{display:flex;gap:1rem;align-items:center;margin:1rem 0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.actions form{margin:0}
.player{display:grid;gap:1rem}
@media(min-width:60rem){.player{grid-template-columns:minmax(0,1.2fr) minmax(0,1fr)}.player video{position:sticky;top:1rem}}
video{width:100%;max-height:60vh;background:#000}
video.dubbed{max-width:48rem}
video.clip{height:auto}
main.signin{max-width:26rem}
ol.segments{list-style:none;padding:0;margin:0;max-height:70vh;overflow-y:auto}
ol.segments li{display:grid;grid-template-columns:auto 1fr;gap:.2rem .6rem;padding:.4rem;border-bottom:1px solid var(--line)}
ol.segments li.active{background:#e3edff;box-shadow:inset 4px 0 0 var(--accent)}
ol.segments .seek{background:#fff;color:var(--accent);padding:.1rem .4rem;font-family:ui-monospace,monospace;font-size:.85rem}
ol.segments .seg-text{margin:0}
ol.segments .seg-tools{grid-column:2}
ol.segments .seg-speaker{grid-column:2;margin:0;font-weight:600;font-size:.9rem}
ol.segments .seg-speaker+.seg-text{grid-column:2}
.swatch{display:inline-block;width:.85em;height:.85em;margin-right:.35em;vertical-align:-.05em;border-radius:2px;background:var(--spk,currentColor);border:1px solid currentColor}
.speaker-name{font-weight:600}
.inline-form{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:0}
.inline-form input[type=text],.inline-form select{width:auto;max-width:16rem}
ol.segments .seg-tools{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
ol.segments .seg-tools .seg-edit,ol.segments .seg-tools .seg-msg{flex-basis:100%}
ol.segments .seg-move select{max-width:12rem}
${SPEAKER_CSS}
meter{width:12rem;max-width:100%}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr));gap:1rem}
.card{border:1px solid var(--line);border-radius:6px;padding:.6rem}
.card img{max-width:100%}
@media(max-width:40rem){main{padding:.75rem}header.top .who{margin-left:0}dl.facts{grid-template-columns:1fr}th,td{padding:.35rem}}
`;
