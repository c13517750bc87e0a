// vkgen memory report: read-outs of the heap charts on hover, and a
// self-check the tests read from the DOM (#vkgen-check): the charts, series
// and points drawn, the charts whose read-out works, and every script
// error. No library, no network.
(function () {
  "use strict";
  var errors = [], readouts = 0;
  function check() {
    var series = 0, points = 0;
    var drawn = document.querySelectorAll("figure.heap svg [data-points]");
    for (var i = 0; i < drawn.length; i++) {
      var n = parseInt(drawn[i].getAttribute("data-points"), 10) || 0;
      if (n > 1) { series++; points += n; }
    }
    document.getElementById("vkgen-check").textContent = JSON.stringify({
      done: true, charts: document.querySelectorAll("figure.heap").length,
      series: series, points: points, readouts: readouts, errors: errors
    });
  }
  window.addEventListener("error", function (e) { errors.push(String(e.message || e.type)); check(); });

  var units = [[1 << 30, "GiB"], [1 << 20, "MiB"], [1 << 10, "KiB"]];
  function bytes(v) {
    for (var i = 0; i < units.length; i++) {
      if (v >= units[i][0]) { return (v / units[i][0]).toFixed(1) + " " + units[i][1]; }
    }
    return v + " B";
  }

  function readout(fig) {
    var data = JSON.parse(fig.querySelector("script.cols").textContent);
    var svg = fig.querySelector("svg"), tip = fig.querySelector(".tip");
    var plot = svg.getAttribute("data-plot").split(" ").map(Number); // left top width height
    var n = data.start_ns.length;
    var cursor = document.createElementNS("http://www.w3.org/2000/svg", "line");
    cursor.setAttribute("stroke", "#000");
    cursor.setAttribute("stroke-opacity", "0.4");
    cursor.setAttribute("y1", plot[1]);
    cursor.setAttribute("y2", plot[1] + plot[3]);
    cursor.style.display = "none";
    svg.appendChild(cursor);
    function hide() { tip.hidden = true; cursor.style.display = "none"; }
    function show(col) {
      var r = svg.getBoundingClientRect();
      var lines = ["at " + (data.start_ns[col] / 1e9).toFixed(4) + " s: " + bytes(data.total[col]) + " in all"];
      for (var i = data.layers.length - 1; i >= 0; i--) {
        var l = data.layers[i];
        if (l.values[col] > 0) { lines.push(l.cluster + (l.driver ? " (driver)" : "") + ": " + bytes(l.values[col])); }
      }
      (data.lines || []).forEach(function (l) { lines.push(l.kind + ": " + bytes(l.values[col])); });
      tip.textContent = lines.join("\n");
      tip.hidden = false;
      var px = plot[0] + (col + 0.5) * plot[2] / n;
      cursor.setAttribute("x1", px);
      cursor.setAttribute("x2", px);
      cursor.style.display = "";
      var left = (px * r.width / svg.viewBox.baseVal.width) + 12;
      tip.style.left = Math.min(left, r.width - 220) + "px";
      tip.style.top = (plot[1] + 4) + "px";
      return lines.length;
    }
    svg.addEventListener("mousemove", function (ev) {
      var r = svg.getBoundingClientRect();
      var x = (ev.clientX - r.left) * svg.viewBox.baseVal.width / r.width;
      var col = Math.floor((x - plot[0]) / plot[2] * n);
      if (col < 0 || col >= n) { hide(); return; }
      show(col);
    });
    svg.addEventListener("mouseleave", hide);
    // The read-out of the peak's column, made once so that the self-check
    // covers it.
    var peak = data.total.indexOf(Math.max.apply(null, data.total));
    var made = show(peak) > 1;
    hide();
    return made;
  }

  // A click on a column's heading sorts the table by it (numbers by their
  // exact value, largest first; text in order); a second click reverses.
  function sortable(table) {
    var head = table.rows[0];
    head.style.cursor = "pointer";
    head.addEventListener("click", function (ev) {
      var col = Array.prototype.indexOf.call(head.cells, ev.target.closest("th"));
      if (col < 0) { return; }
      var rows = Array.prototype.slice.call(table.rows, 1);
      var dir = table.getAttribute("data-sorted") === String(col) ? -1 : 1;
      rows.sort(function (a, b) {
        var x = a.cells[col], y = b.cells[col];
        if (!x || !y) { return 0; }
        if (x.hasAttribute("data-v") && y.hasAttribute("data-v")) {
          return dir * (Number(y.getAttribute("data-v")) - Number(x.getAttribute("data-v")));
        }
        return dir * x.textContent.localeCompare(y.textContent);
      });
      rows.forEach(function (r) { r.parentNode.appendChild(r); });
      table.setAttribute("data-sorted", dir === 1 ? String(col) : "");
    });
  }
  var tables = document.querySelectorAll("table.sortable");
  for (var t = 0; t < tables.length; t++) {
    try { sortable(tables[t]); } catch (e) { errors.push(String(e)); }
  }

  var figs = document.querySelectorAll("figure.heap");
  for (var i = 0; i < figs.length; i++) {
    try {
      if (readout(figs[i])) { readouts++; }
    } catch (e) { errors.push(String(e)); }
  }
  check();
})();
