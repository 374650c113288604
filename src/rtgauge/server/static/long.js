// The long view (/long): interval maxima over days and the span's histogram,
// drawn with plotly.js from /api/long. A zoom fetches the zoomed span again,
// so its finer intervals appear; a point opens its interval.
// Text from the store is only ever set as text, never as markup.
"use strict";

(function () {
  const charts = document.getElementById("long-charts");
  const hists = document.getElementById("long-histograms");
  if (!charts || !window.Plotly) return;
  const base = new URLSearchParams(charts.dataset.query);
  const config = { responsive: true, displaylogo: false };
  const colors = ["#d1242f", "#0969da", "#1a7f37", "#8250df", "#bf8700", "#24292f"];

  function note(box, text) {
    box.textContent = "";
    const p = document.createElement("p");
    p.className = "rtg-hint";
    p.textContent = text;
    box.appendChild(p);
  }

  function box(parent, id) {
    let div = document.getElementById(id);
    if (!div) {
      div = document.createElement("div");
      div.className = "rtg-chart";
      div.id = id;
      parent.textContent = "";
      parent.appendChild(div);
    }
    return div;
  }

  function maxTraces(data) {
    const tests = [];
    return data.series.map(function (s) {
      if (tests.indexOf(s.test) < 0) tests.push(s.test);
      const color = colors[tests.indexOf(s.test) % colors.length];
      return {
        x: s.time, y: s.max_us, customdata: s.id, type: "scatter",
        name: s.test + (s.rt ? "" : " (not real-time)"),
        mode: "markers",
        marker: s.rt ? { color: color, size: 5 } : { color: "#8c959f", size: 5, symbol: "x" },
        hovertemplate: "interval %{customdata} · %{x} UTC<br>max %{y:.2f} µs<extra>" +
                       (s.rt ? "" : "not real-time") + "</extra>",
      };
    });
  }

  function histTraces(data) {
    return data.histograms.filter(function (h) { return h.count > 0; }).map(function (h, i) {
      return {
        x: h.buckets.map(function (b) { return b[0] / 1000; }),
        y: h.buckets.map(function (b) { return b[2]; }),
        width: h.buckets.map(function (b) { return (b[1] - b[0]) / 1000; }),
        type: "bar", name: h.test + " (" + h.count + " samples" +
          (h.overflow ? ", " + h.overflow + " above " + h.overflow_above / 1000 + " µs" : "") + ")",
        marker: { color: colors[i % colors.length] }, offset: 0,
        hovertemplate: "%{x:.2f} µs: %{y} samples<extra></extra>",
      };
    });
  }

  let drawn = false;
  function draw(data) {
    if (data.series.length === 0) {
      note(charts, "no intervals with samples in this span");
      return;
    }
    const title = "Interval maxima — " + data.host + (data.label ? " — label " + data.label : "");
    const layout = {
      title: { text: title, font: { size: 14 }, x: 0, xanchor: "left" },
      margin: { l: 60, r: 20, t: 60, b: 50 },
      xaxis: { title: { text: "time (UTC)" }, type: "date" },
      yaxis: { title: { text: "interval maximum (µs, log)" }, type: "log", tickformat: ".4~r", dtick: "D2" },
      hovermode: "closest", uirevision: "long",
      legend: { orientation: "h", x: 1, xanchor: "right", y: 1.02, yanchor: "bottom" },
    };
    const plot = box(charts, "long-max");
    window.Plotly.react(plot, maxTraces(data), layout, config).then(function () {
      if (drawn) return;
      drawn = true;
      plot.on("plotly_click", function (ev) {
        const id = ev.points && ev.points[0] && ev.points[0].customdata;
        if (id) window.location.href = "/intervals/" + encodeURIComponent(id);
      });
      plot.on("plotly_relayout", function (ev) {
        if (ev["xaxis.range[0]"] !== undefined) {
          load({ since: ev["xaxis.range[0]"], until: ev["xaxis.range[1]"] });
        } else if (ev["xaxis.autorange"]) {
          load({});
        }
      });
    });
    const hl = {
      title: { text: "Latency histogram of the span shown", font: { size: 14 }, x: 0, xanchor: "left" },
      margin: { l: 60, r: 20, t: 60, b: 50 }, barmode: "overlay",
      xaxis: { title: { text: "latency (µs)" } },
      yaxis: { title: { text: "samples (log)" }, type: "log" },
      legend: { orientation: "h", x: 1, xanchor: "right", y: 1.02, yanchor: "bottom" },
    };
    window.Plotly.react(box(hists, "long-hist"), histTraces(data), hl, config);
  }

  function load(span) {
    const q = new URLSearchParams(base);
    Object.keys(span).forEach(function (k) {
      q.set(k, String(span[k]).replace(" ", "T").replace(/Z?$/, "Z"));
    });
    return fetch("/api/long?" + q.toString())
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(draw)
      .catch(function () { note(charts, "the long view's figures could not be loaded"); });
  }
  load({});
})();
