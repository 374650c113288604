// The dashboard's only script: the compare picker, and the charts a person
// explores (plotly.js, served by the server itself). Data comes from /api/.
// Text from the store is only ever set as text, never as markup.
"use strict";

(function () {
  function note(box, text) {
    box.textContent = "";
    const p = document.createElement("p");
    p.className = "rtg-hint";
    p.textContent = text;
    box.appendChild(p);
  }

  function chartBox(parent, id) {
    const div = document.createElement("div");
    div.className = "rtg-chart";
    div.id = id;
    parent.appendChild(div);
    return div;
  }

  // The runs table: Compare is enabled for 2 to 4 runs.
  const form = document.getElementById("compare-form");
  if (form) {
    const button = document.getElementById("compare");
    const hint = document.getElementById("compare-hint");
    const update = function () {
      const n = form.querySelectorAll("input[name=run]:checked").length;
      button.disabled = n < 2 || n > 4;
      hint.textContent = n < 2 ? "pick 2 to 4 runs" : n > 4 ? "at most 4 runs" : n + " runs picked";
    };
    form.addEventListener("change", update);
    update();
  }

  // A log axis: labels as plain numbers; over a decade or more only 1, 2, 5
  // of each decade is labelled, so the labels never crowd.
  const yaxis = function (values) {
    const v = values.filter(function (x) { return x > 0; });
    const wide = v.length && Math.max.apply(null, v) / Math.min.apply(null, v) >= 10;
    const axis = { title: { text: "latency (µs, log)" }, type: "log", tickformat: ".4~r" };
    if (wide) axis.dtick = "D2";
    return axis;
  };

  const layout = function (title, xtitle, values) {
    return {
      title: { text: title, font: { size: 14 }, x: 0, xanchor: "left" },
      margin: { l: 60, r: 20, t: 60, b: 50 },
      xaxis: { title: { text: xtitle } },
      yaxis: yaxis(values),
      hovermode: "closest",
      legend: { orientation: "h", x: 1, xanchor: "right", y: 1.02, yanchor: "bottom" },
    };
  };
  const config = { responsive: true, displaylogo: false };

  // One run: its figures over time.
  const series = document.getElementById("series-charts");
  if (series && window.Plotly) {
    fetch("/api/runs/" + encodeURIComponent(series.dataset.run) + "/series")
      .then(function (r) { return r.json(); })
      .then(function (data) {
        series.textContent = "";
        if (!data.series || data.series.length === 0) {
          note(series, "This run has no figure over time (no series and no block maxima were recorded).");
          return;
        }
        data.series.forEach(function (s, i) {
          const box = chartBox(series, "series-" + i);
          const shapes = s.phases.map(function (p, k) {
            return { type: "rect", xref: "x", yref: "paper", x0: p.start_s, x1: p.end_s, y0: 0, y1: 1,
                     fillcolor: k % 2 ? "#f6f8fa" : "#eef4ff", line: { width: 0 }, layer: "below" };
          });
          const trace = { x: s.t_s, y: s.us, mode: "lines+markers", name: s.name,
                          marker: { size: 4 }, line: { color: "#d1242f", width: 1.2 },
                          hovertemplate: "%{x:.3f} s: %{y:.2f} µs<extra>" + "</extra>" };
          const l = layout(s.test + " " + s.name + " (" + s.what + ")", "time (s)", s.us);
          l.shapes = shapes;
          l.annotations = s.phases.map(function (p) {
            return { x: (p.start_s + p.end_s) / 2, xref: "x", y: 1, yref: "paper", yanchor: "bottom",
                     text: p.name, showarrow: false, font: { size: 10, color: "#57606a" } };
          });
          window.Plotly.newPlot(box, [trace], l, config);
        });
      })
      .catch(function () { note(series, "the figures over time could not be loaded"); });
  }

  // A history: max and tail per run, each point linked to its run.
  const history = document.getElementById("history-charts");
  if (history && window.Plotly) {
    fetch("/api/history?" + history.dataset.query)
      .then(function (r) { return r.json(); })
      .then(function (data) {
        history.textContent = "";
        if (!data.charts || data.charts.length === 0) {
          note(history, "no figures to draw");
          return;
        }
        data.charts.forEach(function (c, i) {
          const pts = c.points;
          if (pts.length === 0) return;
          const box = chartBox(history, "history-" + i);
          box.dataset.test = c.test;
          const x = pts.map(function (p) { return p.time; });
          const hover = "run %{customdata[0]} · %{x}<br>kernel %{customdata[1]}<br>" +
                        "max %{customdata[2]:.2f} µs · %{customdata[4]} %{customdata[3]:.2f} µs" +
                        "<br>%{customdata[5]} samples<extra></extra>";
          const custom = pts.map(function (p) {
            return [p.run, p.kernel, p.max_us, p.tail_us === null ? NaN : p.tail_us, p.tail, p.samples];
          });
          const traces = [
            { x: x, y: pts.map(function (p) { return p.max_us; }), customdata: custom, name: "max",
              mode: "lines+markers", line: { color: "#d1242f" }, hovertemplate: hover },
            { x: x, y: pts.map(function (p) { return p.tail_us; }), customdata: custom, name: "tail",
              mode: "lines+markers", line: { color: "#24292f", dash: "dash" }, hovertemplate: hover },
          ];
          const reg = pts.filter(function (p) { return p.regressed; });
          if (reg.length) {
            traces.push({ x: reg.map(function (p) { return p.time; }),
                          y: reg.map(function (p) { return p.max_us; }),
                          customdata: reg.map(function (p) { return [p.run, p.kernel, p.max_us, p.tail_us, p.tail, p.samples]; }),
                          name: "regression", mode: "markers", hovertemplate: hover,
                          marker: { symbol: "triangle-down", size: 13, color: "#a40e26" } });
          }
          const title = c.test + " — " + c.system + (c.label ? " — label " + c.label : "");
          const values = pts.map(function (p) { return p.max_us; })
            .concat(pts.map(function (p) { return p.tail_us; }));
          window.Plotly.newPlot(box, traces, layout(title, "run time", values), config).then(function () {
            box.on("plotly_click", function (ev) {
              const run = ev.points && ev.points[0] && ev.points[0].customdata[0];
              if (run) window.location.href = "/runs/" + encodeURIComponent(run);
            });
          });
        });
      })
      .catch(function () { note(history, "the history's figures could not be loaded"); });
  }
})();
