import Foundation

extension TimelineRecording {
    /// The recording as one HTML page that needs nothing else — its style, script and data are in
    /// the page; it loads nothing, so it opens from a file, offline, anywhere.
    ///
    /// The page draws one lane per subscription (labelled "1 Sink ← Map"), time running left to
    /// right: a diamond where it was subscribed, a triangle per request, a dot per value, a small
    /// triangle per returned demand, a bar at its completion (red for a failure), a cross at a
    /// cancel; and the demand its subscriber is still owed as a line across the lane (at the top,
    /// dashed, while unlimited). Clicking an event shows what it was: the value, the demand, the
    /// time and the thread. The line under the title says how many events are drawn and how many
    /// were dropped.
    ///
    /// - Parameter title: The page's title and heading.
    public func html(title: String = "Sluice timeline") -> String {
        let curve = TimelineDemandCurve(self)
        let laneData = lanes.map {
            #"{"id":\#($0.id),"title":\#(TimelineJSON.string($0.title))}"#
        }
        let eventData = zip(events, curve.outstanding).map { event, outstanding in
            var detail: String
            switch event.kind {
            case .value(let text): detail = text
            case .request(let demand), .returnedDemand(let demand): detail = TimelineJSON.demand(demand)
            case .completion(let text): detail = text
            case .subscribe, .cancel: detail = ""
            }
            detail = TimelineJSON.string(detail)
            let owed = outstanding.map(String.init) ?? "null"
            return #"{"l":\#(event.lane),"k":"\#(TimelineJSON.category(event.kind))","label":\#(TimelineJSON.string(TimelineJSON.label(event.kind))),"detail":\#(detail),"t":\#(TimelineJSON.microseconds(event.time)),"th":\#(event.thread),"d":\#(owed)}"#
        }
        let data = #"{"lanes":[\#(laneData.joined(separator: ","))],"events":[\#(eventData.joined(separator: ",\n"))],"dropped":\#(dropped)}"#
        let heading = Self.escapeHTML(title)
        return Self.page
            .replacingOccurrences(of: "@TITLE@", with: heading)
            .replacingOccurrences(of: "@DATA@", with: data)
    }

    private static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static let page = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<style>
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --grid: #d8d8de; --lane: #f4f4f7;
  --value: #0a64d8; --request: #1e8a3a; --returned: #14877a; --subscribe: #6e6e78; --finished: #1d1d1f;
  --failure: #c8261e; --cancel: #c8261e; --demand: #b06a00; }
@media (prefers-color-scheme: dark) { :root { --fg: #ececf0; --bg: #16161a; --grid: #3a3a44; --lane: #212128;
  --value: #5aa2ff; --request: #5fd07c; --returned: #4cc9b8; --subscribe: #a0a0ac; --finished: #ececf0;
  --failure: #ff6b61; --cancel: #ff6b61; --demand: #f0a83a; } }
body { font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 16px; }
h1 { font-size: 18px; margin: 0 0 4px; }
#status { color: var(--subscribe); margin-bottom: 8px; }
#chart { overflow-x: auto; border: 1px solid var(--grid); }
#chart svg { display: block; }
.mark { cursor: pointer; }
.mark:hover { opacity: 0.6; }
.selected { stroke: var(--fg); stroke-width: 2; }
#details { white-space: pre-wrap; font: 13px ui-monospace, monospace; border: 1px solid var(--grid);
  padding: 8px; min-height: 3em; margin-top: 8px; }
#legend span { margin-right: 14px; }
</style>
</head>
<body>
<h1>@TITLE@</h1>
<div id="status">Drawing…</div>
<div id="legend"><span>◆ subscribe</span><span style="color:var(--request)">▲ request</span><span style="color:var(--value)">● value</span><span style="color:var(--returned)">▴ returned demand</span><span>▮ completion</span><span style="color:var(--cancel)">✕ cancel</span><span style="color:var(--demand)">— demand owed</span></div>
<div id="chart"></div>
<div id="details">Click an event to see it.</div>
<script type="application/json" id="timeline-data">@DATA@</script>
<script>
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("timeline-data").textContent);
  var laneHeight = 56, top = 28, right = 24;
  var longest = Math.max.apply(null, data.lanes.map(function (lane) { return lane.title.length; }).concat([10]));
  var labelWidth = Math.min(480, 24 + longest * 7.5);
  var times = data.events.map(function (e) { return e.t; });
  var start = times.length ? Math.min.apply(null, times) : 0;
  var end = times.length ? Math.max.apply(null, times) : 1;
  var span = Math.max(end - start, 1e-3);
  var plotWidth = Math.max(600, Math.min(4000, data.events.length * 14));
  var width = labelWidth + plotWidth + right;
  var height = top + data.lanes.length * laneHeight + 8;
  var row = {};
  data.lanes.forEach(function (lane, index) { row[lane.id] = index; });
  function x(t) { return labelWidth + (t - start) / span * plotWidth; }
  function laneTop(id) { return top + row[id] * laneHeight; }
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  var parts = [];
  parts.push('<svg width="' + width + '" height="' + height + '" role="img" aria-label="Timeline of ' +
    data.lanes.length + ' subscriptions">');
  for (var tick = 0; tick <= 4; tick++) {
    var tx = labelWidth + plotWidth * tick / 4;
    parts.push('<line x1="' + tx + '" y1="' + (top - 6) + '" x2="' + tx + '" y2="' + height + '" stroke="var(--grid)"/>');
    parts.push('<text x="' + tx + '" y="' + (top - 10) + '" font-size="11" text-anchor="' +
      (tick === 0 ? "start" : tick === 4 ? "end" : "middle") + '" fill="var(--subscribe)">' +
      (start + span * tick / 4).toFixed(3) + ' µs</text>');
  }
  data.lanes.forEach(function (lane) {
    var y = laneTop(lane.id);
    parts.push('<rect x="0" y="' + (y + 2) + '" width="' + width + '" height="' + (laneHeight - 4) + '" fill="var(--lane)"/>');
    parts.push('<text x="8" y="' + (y + laneHeight / 2 + 4) + '" font-size="13" fill="var(--fg)">' + esc(lane.title) + '</text>');
    var own = data.events.filter(function (e) { return e.l === lane.id; });
    var bounded = own.filter(function (e) { return e.d !== null; }).map(function (e) { return e.d; });
    var most = Math.max(1, Math.max.apply(null, bounded.concat([0])));
    var points = [], owed = 0, unlimited = false;
    own.forEach(function (e) {
      var px = x(e.t);
      var lineTop = y + 8, lineBottom = y + laneHeight - 8;
      var oldY = unlimited ? lineTop : lineBottom - owed / most * (lineBottom - lineTop);
      if (e.d === null) { unlimited = true; } else { unlimited = false; owed = e.d; }
      var newY = unlimited ? lineTop : lineBottom - owed / most * (lineBottom - lineTop);
      points.push(px + "," + oldY, px + "," + newY);
    });
    if (points.length) {
      points.push(x(end) + "," + points[points.length - 1].split(",")[1]);
      parts.push('<polyline points="' + points.join(" ") + '" fill="none" stroke="var(--demand)" stroke-width="1.5"' +
        (unlimited ? ' stroke-dasharray="4 3"' : '') + '/>');
    }
  });
  data.events.forEach(function (e, index) {
    var cx = x(e.t), cy = laneTop(e.l) + laneHeight / 2;
    var attrs = ' class="mark" data-index="' + index + '"';
    var shape;
    switch (e.k) {
    case "value": shape = '<circle cx="' + cx + '" cy="' + cy + '" r="6" fill="var(--value)"' + attrs + '/>'; break;
    case "request": shape = '<path d="M' + cx + ' ' + (cy - 8) + ' l7 12 h-14 z" fill="var(--request)"' + attrs + '/>'; break;
    case "returnedDemand": shape = '<path d="M' + cx + ' ' + (cy + 2) + ' l5 8 h-10 z" fill="var(--returned)"' + attrs + '/>'; break;
    case "subscribe": shape = '<path d="M' + cx + ' ' + (cy - 7) + ' l7 7 l-7 7 l-7 -7 z" fill="var(--subscribe)"' + attrs + '/>'; break;
    case "finished": shape = '<rect x="' + (cx - 2) + '" y="' + (cy - 12) + '" width="4" height="24" fill="var(--finished)"' + attrs + '/>'; break;
    case "failure": shape = '<rect x="' + (cx - 2) + '" y="' + (cy - 12) + '" width="4" height="24" fill="var(--failure)"' + attrs + '/>'; break;
    default: shape = '<path d="M' + (cx - 6) + ' ' + (cy - 6) + ' l12 12 m0 -12 l-12 12" stroke="var(--cancel)" stroke-width="3"' + attrs + '/>';
    }
    parts.push(shape);
  });
  parts.push('</svg>');
  var chart = document.getElementById("chart");
  chart.innerHTML = parts.join("");
  var details = document.getElementById("details");
  var selected = null;
  chart.addEventListener("click", function (event) {
    var target = event.target;
    if (!target.hasAttribute || !target.hasAttribute("data-index")) { return; }
    var e = data.events[Number(target.getAttribute("data-index"))];
    var lane = data.lanes[row[e.l]];
    if (selected) { selected.classList.remove("selected"); }
    selected = target;
    target.classList.add("selected");
    details.textContent = lane.title + "\n" + e.label + (e.detail && e.k === "value" ? "\nvalue: " + e.detail : "") +
      "\nat " + e.t.toFixed(3) + " µs, thread " + e.th +
      "\ndemand owed after it: " + (e.d === null ? "unlimited" : e.d);
  });
  document.getElementById("status").textContent = "Drew " + data.events.length + " events in " + data.lanes.length +
    " lanes" + (data.dropped ? "; " + data.dropped + " older events were dropped" : "") + ".";
})();
</script>
</body>
</html>
"""#
}
