/// `GET /`: a self-contained page (no external resources) that shows a topic live through
/// `EventSource` on `events` (`/events` or `/events/<topic>`) — each event an `<li>` of its data
/// text in `#events`, newest first, the last 200 kept. With `?topic=a&topic=b…` in its own address,
/// it follows those topics over one connection instead (`/events?topic=a&topic=b…`), each event's
/// `<li>` named by its topic (`data-topic`, and `a: ` before its text), and posts to the first; `#status` says "connected" or
/// "reconnecting" — and posts text to the same path from a small form. The instance's name is in
/// the title and the heading. With `stats`, a small chart (inline SVG, `#chart`) draws this
/// instance's last minute from `GET /stats`, read every second: its clients, the events it
/// delivered per second, and the events its clients lost by their policy per second; `#clients`,
/// `#rate` and `#drops` say the latest values.
public enum FeedPage {
    /// The page of instance `instance`, served by `server`, for the events at `events`.
    public static func html(instance: String, server: String, events: String = "/events", stats: Bool = false) -> String {
        let name = escaped(instance)
        let path = escaped(events)
        let chart = stats ? Self.chart : ""
        let sampling = stats ? Self.sampling : ""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sluice feed — \(name)</title>
            <style>
              body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem auto; max-width: 42rem; padding: 0 1rem; }
              h1 { font-size: 1.4rem; margin-bottom: .2rem; }
              #status { font-weight: 600; }
              #status.connected { color: #17803d; }
              #status.reconnecting { color: #b45309; }
              form { display: flex; gap: .5rem; margin: 1rem 0; }
              #text { flex: 1; padding: .3rem .5rem; }
              #events { list-style: none; padding: 0; font-family: ui-monospace, monospace; }
              #events li { border-bottom: 1px solid #ddd; padding: .25rem 0; }
              #events li::before { content: attr(data-id) "  "; color: #888; }
              #notices { color: #b45309; }
              #chart { width: 100%; height: 90px; border: 1px solid #ddd; }
              #chart polyline { fill: none; stroke-width: 1.5; vector-effect: non-scaling-stroke; }
              .clients { color: #2563eb; stroke: #2563eb; } .rate { color: #17803d; stroke: #17803d; }
              .drops { color: #b91c1c; stroke: #b91c1c; }
              #legend span { margin-right: 1rem; font-variant-numeric: tabular-nums; }
            </style>
            </head>
            <body>
            <h1>Sluice feed — instance <span id="instance">\(name)</span></h1>
            <p>Served by <code>\(escaped(server))</code> · events of <code>\(path)</code> · <span id="status">connecting</span></p>
            <form id="post">
              <input id="text" name="text" autocomplete="off" placeholder="An event for every instance's clients" required>
              <button type="submit">Post</button>
            </form>
            <p id="notices"></p>
            \(chart)
            <ul id="events"></ul>
            <script>
            const list = document.getElementById("events");
            const status = document.getElementById("status");
            const notices = document.getElementById("notices");
            function show(state) { status.textContent = state; status.className = state; }
            function notice(text) { notices.textContent = text; }
            const topics = new URLSearchParams(location.search).getAll("topic");
            const query = topics.map((topic) => "topic=" + encodeURIComponent(topic)).join("&");
            const source = new EventSource(topics.length ? "/events?" + query : "\(path)");
            const postPath = topics.length ? "/events/" + encodeURIComponent(topics[0]) : "\(path)";
            source.onopen = () => show("connected");
            source.onerror = () => show(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
            function add(event, topic) {
              const item = document.createElement("li");
              item.textContent = topic === null ? event.data : topic + ": " + event.data;
              if (topic !== null) item.dataset.topic = topic;
              item.dataset.id = topic === null ? event.lastEventId : "";
              list.prepend(item);
              while (list.childElementCount > 200) list.lastElementChild.remove();
            }
            source.onmessage = (event) => add(event, null);
            for (const topic of topics) source.addEventListener(topic, (event) => add(event, topic));
            source.addEventListener("dropped", (event) => notice("missed " + JSON.parse(event.data).dropped + " events (this page fell behind)"));
            source.addEventListener("reset", () => notice("missed events while away: the list may have a gap"));
            source.addEventListener("shutdown", (event) => notice("the server is shutting down: " + event.data));
            \(sampling)
            document.getElementById("post").addEventListener("submit", async (submit) => {
              submit.preventDefault();
              const field = document.getElementById("text");
              const response = await fetch(postPath, { method: "POST", body: field.value });
              if (response.ok) field.value = ""; else notice("not posted: " + response.status);
            });
            </script>
            </body>
            </html>

            """
    }

    /// The chart's markup.
    private static let chart = """
            <svg id="chart" viewBox="0 0 60 100" preserveAspectRatio="none" data-samples="0" role="img"
                 aria-label="this instance's clients, events delivered per second and events dropped per second, the last minute">
              <polyline class="clients" points=""></polyline><polyline class="rate" points=""></polyline>
              <polyline class="drops" points=""></polyline>
            </svg>
            <p id="legend"><span class="clients">clients <b id="clients">–</b></span><span class="rate">delivered/s
              <b id="rate">–</b></span><span class="drops">dropped/s <b id="drops">–</b></span></p>
        """

    /// The chart's script: `/stats` read every second.
    private static let sampling = """
            const samples = [];
            let previous = null;
            function draw() {
              const chart = document.getElementById("chart");
              for (const [name, pick] of [["clients", (s) => s.clients], ["rate", (s) => s.rate], ["drops", (s) => s.drops]]) {
                const values = samples.map(pick);
                const top = Math.max(1, ...values);
                const points = values.map((v, i) => (60 - values.length + i) + "," + (98 - 96 * v / top).toFixed(1));
                chart.querySelector("polyline." + name).setAttribute("points", points.join(" "));
                document.getElementById(name).textContent = values.length ? String(values[values.length - 1]) : "–";
              }
              chart.dataset.samples = String(samples.length);
            }
            async function sample() {
              try {
                const stats = await (await fetch("/stats")).json();
                if (previous) {
                  samples.push({ clients: stats.clients, rate: Math.max(0, stats.delivered - previous.delivered),
                                 drops: Math.max(0, stats.dropped - previous.dropped) });
                  while (samples.length > 60) samples.shift();
                  draw();
                }
                previous = stats;
              } catch (error) { /* the instance is restarting: the next second tries again */ }
            }
            sample();
            setInterval(sample, 1000);
        """

    /// `text` safe inside HTML text and attribute values.
    public static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
