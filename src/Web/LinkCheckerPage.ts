import {
  CHECK_INTERVALS_MS,
  PAGE_NOT_FOUND_RETRY_MS,
  UNREACHABLE_CONFIRMATIONS,
  UNREACHABLE_RETRY_MS
} from "../Domain/LinkVerdict.js"
import { CHECK_DAYS, HOST_PAUSE_MS } from "../LinkChecks/Checker.js"
import type { PageLimits } from "../LinkChecks/PageFetcher.js"
import { html, page } from "../Ui/Html.js"

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** A span in words: "14 days", "12 hours", "1 hour". */
const span = (ms: number) => {
  const [count, unit] = ms % DAY === 0 ? [ms / DAY, "day"] : [ms / HOUR, "hour"]
  return `${count} ${unit}${count === 1 ? "" : "s"}`
}

/** How often, in words: "every day", "every 7 days". */
const every = (ms: number) => `every ${span(ms).replace(/^1 /, "")}`

const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB`

/**
 * `GET /link-checker`: the page the link checker's User-Agent names, for website owners who see it in their logs:
 * what it fetches, how often, how politely, what it keeps, and whom to tell. Public (no sign-in). Every figure comes
 * from the checker's own settings, so the page says what the checker does.
 */
export const linkCheckerPage = (options: { readonly userAgent: string; readonly limits: PageLimits }) =>
  page(
    "The link checker",
    html`<h1>The link checker</h1>
<p>You are probably here because your server's log shows requests with this User-Agent:</p>
<pre class="wrap"><code>${options.userAgent}</code></pre>
<p>This service keeps a list of the backlinks its customers have acquired: links on other websites that point to
the customers' own. The link checker confirms that each of those links is still there. It is not a search engine's
crawler and it does not index anything.</p>

<h2>What it fetches</h2>
<ul>
<li>One page per backlink: the page the link is on (its source page), as it was recorded for the customer. It looks
in that page's HTML for the one link to the customer's address.</li>
<li>It follows no other link on the page and loads nothing the page refers to (no images, scripts, styles or
frames). It does not crawl your site and does not read <code>robots.txt</code>: it only ever asks for the pages
recorded as backlinks.</li>
</ul>

<h2>How often</h2>
<ul>
<li>A backlink not yet confirmed: ${every(CHECK_INTERVALS_MS.pending)}.</li>
<li>A link found on its page: ${every(CHECK_INTERVALS_MS.live)} at most.</li>
<li>A link reported lost: ${every(CHECK_INTERVALS_MS.lost)}, in case it comes back.</li>
<li>Sooner after a failure, to confirm it before telling the customer: ${span(PAGE_NOT_FOUND_RETRY_MS)} after a
404 or 410, ${span(UNREACHABLE_RETRY_MS)} after no answer or a server error. One failed request never makes a link
lost: a page that could not be reached must fail ${UNREACHABLE_CONFIRMATIONS} times over at least a day.</li>
<li>Checks are spread out in time, so they do not all come at once.</li>
</ul>

<h2>How politely</h2>
<ul>
<li>At most one request at a time to your host, and at least ${HOST_PAUSE_MS / 1000} seconds between two of them,
however many of the service's servers are running.</li>
<li>A request is given up after ${options.limits.timeoutMs / 1000} seconds; at most ${mib(options.limits.maxBytes)}
of a page is read, and the connection is closed as soon as the link is found.</li>
<li>At most ${options.limits.maxRedirects} redirects are followed.</li>
<li>Conditional requests: when your server gave an <code>ETag</code> or a <code>Last-Modified</code> date, the next
request sends <code>If-None-Match</code> or <code>If-Modified-Since</code>, and a <code>304 Not Modified</code> answer
is all it needs.</li>
<li>Only public addresses are requested.</li>
</ul>

<h2>What it keeps</h2>
<p>Only what it needs to say whether the link stands: the HTTP status, the address the redirects ended on, the
link's <code>rel</code> values (<code>nofollow</code>, <code>sponsored</code>, <code>ugc</code>), the link's text,
whether the page asks search engines not to index it (<code>noindex</code> in a robots meta tag or the
<code>X-Robots-Tag</code> header), and how long the request took. The page itself is not stored. Checks are kept
${CHECK_DAYS} days.</p>

<h2>If it misbehaves</h2>
<p>Please contact the operator of this service, the website this page is on, and say what you saw (the time, your
host and the addresses requested). You may also block the User-Agent above or answer it with an error: the link is
then reported to the customer as unreachable, and after that checked only
${every(CHECK_INTERVALS_MS.lost)}.</p>`,
    { wide: true }
  )
